"""What the tests of the upstream patch share: the new tests' ids, an author,
and what a body must never say upstream."""

import re

from exportpass_fix.shared.fix_source import TEST_CLASS

NEW_TESTS = {
    f"{TEST_CLASS}::{name}"
    for name in (
        "test_delegate_of_lifted_constants_lowers",
        "test_placeholder_receives_the_constants_values",
        "test_one_constant_graph_retraces_in_its_placeholders_mode",
        "test_one_pass_instance_retraces_each_graph_in_its_own_mode",
        "test_graph_without_inputs_retraces_fake",
        "test_pass_that_raises_leaves_no_mode_entered",
    )
}

AUTHOR = "A Person <a.person@example.org>"
# What the body must never say upstream: this project's names, its commands,
# and placeholder text.
NOT_UPSTREAM = re.compile(
    r"exportpass_fix|exportpass-fix|EXPORTPASS_FIX|\bprove\b|\bmatrix\b"
    r"|\bcheck --|<to be|TODO|XXX|\.\.\.puts|…"
)
