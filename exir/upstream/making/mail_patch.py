"""A mail-formatted patch (what ``git format-patch`` writes, ``git am``
reads) from whole-file changes: headers, message, diffstat and diffs."""

import difflib
import email.utils
import hashlib
import os
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Tuple


@dataclass(frozen=True)
class FileChange:
    path: str
    old: str
    new: str


def _file_diff(change: FileChange) -> Tuple[str, int, int]:
    """A ``diff --git`` section for one file, with its added/removed counts."""
    hunks = list(
        difflib.unified_diff(
            change.old.splitlines(keepends=True),
            change.new.splitlines(keepends=True),
            fromfile=f"a/{change.path}",
            tofile=f"b/{change.path}",
            n=3,
        )
    )
    body = hunks[2:]
    added = sum(1 for line in body if line.startswith("+"))
    removed = sum(1 for line in body if line.startswith("-"))
    text = f"diff --git a/{change.path} b/{change.path}\n" + "".join(hunks)
    return text, added, removed


def _bar_width(count: int, scale: float) -> int:
    """As git draws it: scaled to fit, but never zero for a nonzero count."""
    return max(1, round(count * scale)) if count else 0


def _diffstat(rows: List[Tuple[str, int, int]]) -> str:
    width = max(len(path) for path, _, _ in rows)
    most = max(added + removed for _, added, removed in rows)
    scale = min(1.0, 50 / most) if most else 1.0
    lines = []
    for path, added, removed in rows:
        bar = "+" * _bar_width(added, scale) + "-" * _bar_width(removed, scale)
        lines.append(f" {path.ljust(width)} | {added + removed:3d} {bar}\n")
    total_added = sum(added for _, added, _ in rows)
    total_removed = sum(removed for _, _, removed in rows)
    lines.append(
        f" {len(rows)} files changed,"
        f" {total_added} insertion{'s' if total_added != 1 else ''}(+),"
        f" {total_removed} deletion{'s' if total_removed != 1 else ''}(-)\n"
    )
    return "".join(lines)


def patch_text(
    changes: List[FileChange], author: str, date: str, subject: str, message: str
) -> str:
    diffs = [_file_diff(change) for change in changes]
    stat = _diffstat(
        [(c.path, added, removed) for c, (_, added, removed) in zip(changes, diffs)]
    )
    return (
        "From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n"
        f"From: {author}\n"
        f"Date: {date}\n"
        f"Subject: [PATCH] {subject}\n"
        "\n"
        f"{message}"
        "---\n"
        f"{stat}"
        "\n" + "".join(text for text, _, _ in diffs)
    )


def patch_digest(changes: List[FileChange]) -> str:
    """sha256 of the diffs alone: equal for two patches that change the same
    files the same way, whoever made them and whatever their messages say."""
    diffs = "".join(_file_diff(change)[0] for change in changes)
    return hashlib.sha256(diffs.encode("utf-8")).hexdigest()


def patch_file_name(subject: str) -> str:
    slug = "".join(c if c.isalnum() else "-" for c in subject)
    while "--" in slug:
        slug = slug.replace("--", "-")
    return f"0001-{slug.strip('-')}.patch"


def unwritable(out_dir: Path) -> str:
    """Why a patch cannot be written into ``out_dir``, or ''."""
    if out_dir.exists() and not out_dir.is_dir():
        return f"output directory {out_dir} is not a directory"
    if not out_dir.is_dir():
        return f"output directory {out_dir} does not exist"
    try:
        probe_fd, probe = tempfile.mkstemp(dir=out_dir, prefix=".probe-")
    except OSError as error:
        return f"output directory {out_dir} is not writable: {error.strerror}"
    os.close(probe_fd)
    os.unlink(probe)
    return ""


def write_patch(
    out_dir: Path,
    changes: List[FileChange],
    author: str,
    subject: str,
    message: str,
    date: Optional[str] = None,
) -> Path:
    """The mail-formatted patch, written whole or not at all; its path."""
    text = patch_text(
        changes,
        author,
        date or email.utils.formatdate(time.time(), localtime=True),
        subject,
        message,
    )
    target = out_dir.resolve() / patch_file_name(subject)
    with tempfile.NamedTemporaryFile(
        "w", dir=out_dir, prefix=".patch-", delete=False, encoding="utf-8"
    ) as handle:
        handle.write(text)
    os.replace(handle.name, target)
    return target


IDENTITY = re.compile(r"[^<>\n]+ <[^<>\s]+@[^<>\s]+>")
NO_AUTHOR = (
    'no author: pass --author "Name <email>" or set git config user.name and'
    " user.email (the PR's author must sign the CLA)"
)


def valid_identity(identity: str) -> bool:
    """Whether ``identity`` is ``Name <email>``, as From: and trailers want."""
    return IDENTITY.fullmatch(identity) is not None


def git_identity() -> Optional[str]:
    """``user.name <user.email>`` as git would commit here, if both are set."""
    try:
        name, mail = (
            subprocess.run(
                ["git", "config", key],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
            for key in ("user.name", "user.email")
        )
    except (OSError, subprocess.CalledProcessError):
        return None
    return f"{name} <{mail}>" if name and mail else None


NO_AUTHOR = (
    'no author: pass --author "Name <email>" or set git config user.name and'
    " user.email (the PR's author must sign the CLA)"
)
