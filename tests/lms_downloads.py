"""Downloads as learning platforms make them, built by the tests from the course's own notebooks.

Canvas (Assignments > Download Submissions): one zip of files named
`lastnamefirstname[_LATE]_USERID_ATTACHMENTID_ORIGINAL[-N].ext` (a `-N` suffix for a re-upload within one
submission).  Moodle (View all submissions > Download all submissions, "in folders"): a folder per person named
`Full Name_PARTICIPANTID_assignsubmission_file_` holding the files as uploaded, or, without folders, the same prefix
on each file name.
"""
import zipfile
from pathlib import Path

import nbformat


def canvas_name(last_first, user_id, attachment_id, original, late=False, resubmission=None):
    stem, _, ext = original.rpartition(".")
    tail = f"{stem}-{resubmission}.{ext}" if resubmission else original
    return f"{last_first}{'_LATE' if late else ''}_{user_id}_{attachment_id}_{tail}"


def moodle_folder(full_name, participant_id, plugin="file"):
    return f"{full_name}_{participant_id}_assignsubmission_{plugin}_"


def content(nb):
    return nb if isinstance(nb, bytes) else nbformat.writes(nb).encode("utf-8")


def write_zip(path, entries):
    """A zip at `path` of {member name: notebook node or bytes}."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, nb in entries.items():
            zf.writestr(name, content(nb))
    return path


def write_tree(folder, entries):
    """Files under `folder` from {relative path: notebook node or bytes}."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    for rel, nb in entries.items():
        path = Path(folder, rel)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content(nb))
    return Path(folder)
