"""check's columns build Vulkan's pattern graphs once per column
(``share_pattern_graphs``) and record what the partitioner tags
(``recording_triggers``): a lowering with either gives the very .pte a
lowering without gives (UUID-blind), and the shared graphs are reused."""

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.once

# One fresh process: detr-sine with the backport through Vulkan (on 1.5.1
# two delegates), as ExecuTorch lowers it, then as a column does (recording
# the tags) without the shared graphs, then twice with them.
SCRIPT = """
import json
from executorch.exir import to_edge_transform_and_lower
from exportpass_fix.backport.replace_call import apply
from exportpass_fix.diagnosis.checking import steps
from exportpass_fix.diagnosis.checking.partitioners import construct
from exportpass_fix.diagnosis.loading.model_spec import load_model

apply()
model = load_model("builtin:detr-sine")


def digest():
    edge, ok, detail, _ = steps._lower(model, ["vulkan"], False)
    buffer = edge.to_executorch().buffer
    return [detail, steps.uuid_blind_digest(buffer)]


edge = to_edge_transform_and_lower(model.program, partitioner=[construct("vulkan")])
unrecorded = steps.uuid_blind_digest(edge.to_executorch().buffer)
plain = digest()
cached = steps.share_pattern_graphs()
shared = [digest(), digest()]
from executorch.backends.vulkan.patterns.pattern_registry import fusable_patterns

builds = [e.get_graphs_fn for e in fusable_patterns.values() if e.get_graphs_fn]
hits = sum(build.cache_info().hits for build in builds)
built = sum(build.cache_info().misses for build in builds)
found = {"cached": cached, "built": built, "hits": hits}
found["unrecorded"] = unrecorded
print(json.dumps({**found, "plain": plain, "shared": shared}))
"""


def test_shared_pattern_graphs_and_recorded_tags_lower_to_the_same_bytes() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    # Each pattern function built its graphs once and served them again.
    assert found["cached"] >= 1 and found["built"] == found["cached"]
    assert found["hits"] >= found["cached"]
    assert found["shared"] == [found["plain"], found["plain"]]
    assert found["plain"][1] == found["unrecorded"]  # recording changes nothing
