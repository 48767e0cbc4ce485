"""The live processes of this machine as ``/proc`` lists them (Linux), for the fault and soak
tests: who started whom, and in which session."""
from __future__ import annotations

import os
from pathlib import Path


def parent_and_session(pid: int) -> tuple[int, int] | None:
    """(parent pid, session id) of a live process; None when it is gone or a zombie."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return (int(fields[1]), int(fields[3])) if fields[0] != "Z" else None


def command_line(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def live_processes() -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, session id) of every live process."""
    table = {}
    for name in filter(str.isdigit, os.listdir("/proc")):
        info = parent_and_session(int(name))
        if info is not None:
            table[int(name)] = info
    return table


def session_processes(sid: int) -> list[int]:
    """Live processes of session ``sid``."""
    return [pid for pid, (_, session) in live_processes().items() if session == sid]


def children_of(pid: int) -> list[int]:
    """Live processes whose parent is ``pid``."""
    return [child for child, (parent, _) in live_processes().items() if parent == pid]
