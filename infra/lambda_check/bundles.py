"""Each bundle unpacked as Lambda unpacks it into /var/task: a folder of its own, read-only
(no write bit for anyone; the functions also run as an unprivileged user, see functions.py,
since root ignores the bits). Unpacked once per zip digest, beside the package
(<package>/unpacked: `make package` starts it afresh)."""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
import zipfile
from pathlib import Path

DONE = ".unpacked"  # written last, outside the task root: a half-unpacked folder is redone


def digest(path: Path) -> str:
    sha = hashlib.sha256()
    with path.open("rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            sha.update(block)
    return sha.hexdigest()[:16]


def unpack(zip_path: Path, into: Path) -> Path:
    """The task root of this zip (its contents, read-only), in a folder of `into`."""
    home = into / f"{zip_path.stem}-{digest(zip_path)}"
    task_root = home / "task"
    if (home / DONE).exists():
        return task_root
    remove(home)
    task_root.mkdir(parents=True)
    with zipfile.ZipFile(zip_path) as archive:
        archive.extractall(task_root)
    _read_only(task_root)
    (home / DONE).write_text(zip_path.name)
    return task_root


def _read_only(folder: Path) -> None:
    for path, dirs, files in os.walk(folder):
        for name in files:
            file = Path(path, name)
            mode = file.stat().st_mode
            executable = stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH if mode & stat.S_IXUSR else 0
            file.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH | executable)
        for name in dirs:
            Path(path, name).chmod(0o555)
    folder.chmod(0o555)


def remove(folder: Path) -> None:
    """Removes a folder that may hold read-only task roots (the bits stop anyone but root)."""
    if folder.exists():
        _writable(folder)
        shutil.rmtree(folder)


def _writable(folder: Path) -> None:
    for path, dirs, _ in os.walk(folder):
        Path(path).chmod(0o755)
        for name in dirs:
            Path(path, name).chmod(0o755)
