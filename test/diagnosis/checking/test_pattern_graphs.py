"""check's columns build Vulkan's pattern graphs once per column
(``share_pattern_graphs``): a lowering with them shared gives the very .pte
a lowering without gives (UUID-blind), and the shared ones are reused."""

import json
import subprocess
import sys

import pytest

pytestmark = pytest.mark.once

# One fresh process: detr-sine with the backport through Vulkan (on 1.5.1
# two delegates), without the shared graphs, then twice with them.
SCRIPT = """
import json
from exportpass_fix.backport.replace_call import apply
from exportpass_fix.diagnosis.checking import steps
from exportpass_fix.diagnosis.loading.model_spec import load_model

apply()
model = load_model("builtin:detr-sine")


def digest():
    edge, ok, detail, _ = steps._lower(model, ["vulkan"], False)
    buffer = edge.to_executorch().buffer
    return [detail, steps.uuid_blind_digest(buffer)]


plain = digest()
cached = steps.share_pattern_graphs()
shared = [digest(), digest()]
from executorch.backends.vulkan.patterns.pattern_registry import fusable_patterns

builds = [e.get_graphs_fn for e in fusable_patterns.values() if e.get_graphs_fn]
hits = sum(build.cache_info().hits for build in builds)
built = sum(build.cache_info().misses for build in builds)
found = {"cached": cached, "built": built, "hits": hits}
print(json.dumps({**found, "plain": plain, "shared": shared}))
"""


def test_shared_pattern_graphs_lower_to_the_same_bytes() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    # Each pattern function built its graphs once and served them again.
    assert found["cached"] >= 1 and found["built"] == found["cached"]
    assert found["hits"] >= found["cached"]
    assert found["shared"] == [found["plain"], found["plain"]]
