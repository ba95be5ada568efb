"""check_survey.py's record for docs/check.md: what was compared and how
much of the survey that covers, whether check agreed, where its "where"
points, and each bitten model with the lines and ops check names. Not in
the record's ``made_from``: it decides no outcome.
"""

import re
import textwrap
from typing import Dict

from exportpass_fix.survey import outcomes, record as records


def _op(node: str) -> str:
    """An op's name from its node's (``aten_arange_start_step_1``: arange)."""
    name = re.sub(r"_\d+$", "", node)
    name = re.sub(r"^(aten_|dim_order_ops__)", "", name)
    return re.sub(r"_(default|tensor|start_step|scalar|int|copy_default)$", "", name)


def _lines(checks: Dict, why: str) -> Dict[tuple, str]:
    """(model, file, line) -> what it points at, for the checks made ``why``:
    each model's line counted once, whichever partitioners it was checked through."""
    return {
        (key.split()[0], s["file"], s["line"]): s["points_at"]
        for key, c in checks.items()
        if c["why"] == why
        for s in c["where"]
    }


def render(record: Dict, survey: Dict) -> str:
    """Check against the survey, for docs/check.md: what was compared and
    whether it agreed, where "where" points, then each bitten model with
    the lines and ops check names (or that check has not met it yet)."""
    checks = record["checks"]
    bitten = records.bitten(survey)
    met = sorted({key.split()[0] for key, c in checks.items() if c["why"] == "bitten"})
    drawn = sorted({key.split()[0] for key, c in checks.items() if c["why"] == "drawn"})
    sources = _lines(checks, "bitten")
    counted = {kind: 0 for kind in ("table", "call site", "neither")}
    for points_at in sources.values():
        counted[points_at] += 1
    folded = {
        why: [c["check"].get("folded") for c in checks.values() if c["why"] == why]
        for why in ("bitten", "drawn")
    }
    lowers = {why: folded[why].count(outcomes.LOWERS) for why in folded}
    drawn_lines = _lines(checks, "drawn")
    said = (
        f"check on {len(drawn)} drawn unbitten models (seed {record['seed']},"
        f" Vulkan): {', '.join(drawn) or 'none'}; and on {len(met)} of the"
        f" {len(bitten)} bitten (each biting partitioner; below). It agrees with the survey,"
        " unpatched and with the backport, on"
        f" {sum(c['agrees'] for c in checks.values())} of {len(checks)}. Of"
        f' the {len(sources)} source lines its "where" names for the bitten,'
        f" {counted['table']} compute the table, {counted['call site']} are"
        f" its call site in forward, {counted['neither']} neither; it names"
        f" {len(drawn_lines)} for the drawn. Folded first, unpatched:"
        f" {lowers['bitten']} of {len(folded['bitten'])} bitten checks lower,"
        f" and {lowers['drawn']} of {len(folded['drawn'])} drawn ones."
    )
    lines = textwrap.wrap(said, 100)
    for key in bitten:
        mine = {k.split()[1]: c for k, c in checks.items() if k.split()[0] == key}
        named = {
            (s["file"], s["line"], s["code"], tuple(sorted({_op(o) for o in s["ops"]})))
            for c in mine.values()
            for s in c["where"]
        }
        head = f"{key} ({', '.join(sorted(mine)) or 'check not run yet'})"
        for file, line, code, ops in sorted(named) or [("", "", "", ())]:
            lines.append(f"{head}: {file}:{line}" if file else f"{head}: where not run")
            said = f"  {code}; ops: {', '.join(ops)}" if file else ""
            lines += textwrap.wrap(said, 100, subsequent_indent="    ")
    return "\n".join(lines)
