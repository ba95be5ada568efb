"""What the tests of the upstream patch share: the new tests' ids, an author,
and what a body must never say upstream."""

import re

from exportpass_fix.shared.fix_source import TEST_CLASS

NEW_TESTS = {
    f"{TEST_CLASS}::{name}"
    for name in (
        "test_placeholders_of_one_fake_mode_keep_it",
        "test_graph_without_fake_tensors_gets_a_new_fake_mode",
        "test_two_fake_modes_keep_the_plain_inputs_mode",
        "test_placeholder_overrides_receive_the_constants_values",
        "test_partitioned_constant_subgraph_lowers",
    )
}

AUTHOR = "A Person <a.person@example.org>"
# What the body must never say upstream: this project's names, its commands,
# and placeholder text.
NOT_UPSTREAM = re.compile(
    r"exportpass_fix|exportpass-fix|EXPORTPASS_FIX|\bprove\b|\bmatrix\b"
    r"|\bcheck --|<to be|TODO|XXX|\.\.\.puts|…"
)
