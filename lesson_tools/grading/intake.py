"""What a learning platform downloads, read as it is: every file under the paths given, zips read in place, and the
person each file belongs to.

    files = find(["downloads/"])                     # [File], zips opened in place (never unpacked to disk)
    who = person(file, "02_model", pattern=None)     # Person: identity, display name, late, attempt order

Who a file belongs to, the first rule that applies:

1. `--pattern REGEX` given: a regex with a named group `student_id` (and optionally `name`, `late`, `attempt`),
   searched in the file's path relative to the folder or zip given ('/' between parts), as nbgrader's
   FileNameCollectorPlugin does. A file it does not match is not graded (its row says so): nothing is guessed.
2. Canvas and Moodle: the outermost part of the file's path (the folder given, its folders, the file name) that a
   platform wrote: Canvas's `lastnamefirstname[_LATE]_USERID_ATTACHMENTID_ORIGINAL[-N].ext` (a file, or the folder
   or zip of an inner zip it holds; the user id is the person), Moodle's `Full Name_PARTICIPANTID_assignsubmission_
   PLUGIN_...` (a folder, or the start of a file name in a download without folders; the participant id is the
   person).  What the student named (ORIGINAL, the file inside Moodle's folder) never decides: when it claims another
   id, the person's note says so.
4. A plain folder: the first folder under the folder given is the person; a file directly in it is named by its file
   name less the course notebook's name and a browser's download suffix (`s1042_02_model (1).ipynb` -> s1042).
   A folder that holds one notebook for several people is refused by the grader (`merged_folders`).

Zips (a Canvas download) are read in place, with the limits files have: at most MAX_MEMBERS entries, each at most
MAX_BYTES (read so, whatever its header claims); an entry whose path climbs out (`..`, absolute), a link or an
encrypted entry is a file with a `problem` (a row of its own, never read).  A zip inside the zip (a learner who
handed in a zip) is read in place the same way, under the same limits, its files its person's (the platform's name
for it is on the inner zip); a zip inside that one is a problem.
"""
import contextlib
import os
import re
import stat
import unicodedata
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

MAX_BYTES = 16 * 1024 * 1024          # about 20 times the largest notebook of the course, outputs and all
MAX_MEMBERS = 10_000                  # entries of one zip
MAX_ZIP_BYTES = 64 * 1024 * 1024      # a zip a learner handed in, inside the platform's zip (read in place)
SKIPPED = ("__MACOSX", "__pycache__")
DOWNLOAD_SUFFIX = re.compile(r"(\s*\(\d+\)|[\s_-]*copy(\s*\d+)?)+$", re.IGNORECASE)
CANVAS = re.compile(r"^(?P<name>[^_/]+?)(?P<late>_LATE)?_(?P<user_id>\d+)_(?P<attachment_id>\d+)_"
                    r"(?P<original>.+?)(?:-(?P<resubmission>\d+))?(?P<ext>\.[^./]+)?$")
MOODLE = re.compile(r"^(?P<name>.+?)_(?P<user_id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_(?P<rest>.*)$")
PATTERN_GROUPS = ("student_id", "name", "late", "attempt")


class UsageError(Exception):
    """Grading cannot start: a path that does not exist, an option out of range."""


@dataclass(frozen=True)
class File:
    """One file handed in: `label` (how rows name it), `rel` (its path parts under the folder or zip given), `size`,
    `mtime` (seconds), `source` (the path on disk, or (zip path, member name)), `problem` (why it is not read)."""
    label: str
    rel: tuple
    size: int
    mtime: float
    source: object = field(repr=False)
    problem: str = None
    inode: tuple = None       # (device, inode) of a file with several hard links

    def read_bytes(self):
        """The file's bytes, at most MAX_BYTES + 1 of them (a larger file is refused by its reader)."""
        if isinstance(self.source, tuple):
            archive, member, *inner = self.source
            with zipfile.ZipFile(archive) as zf, zf.open(member) as f:
                if not inner:
                    return f.read(MAX_BYTES + 1)
                with zipfile.ZipFile(f) as nested, nested.open(inner[0]) as g:
                    return g.read(MAX_BYTES + 1)
        with open(self.source, "rb") as f:
            return f.read(MAX_BYTES + 1)


NAMED_BY = ("folder", "file name")           # people known by a name alone: one person whichever way it was found


def person_key(platform, id):
    """One key per person: 'canvas:12345', 'moodle:12345', 'pattern:s1', 'unmatched:<path>', or 'name:alice' for
    people known by a name alone (from a folder or a file name alike)."""
    return f"{'name' if platform in NAMED_BY else platform}:{id}"


@dataclass(frozen=True)
class Person:
    """Who handed a file in: `id` (the platform's id, or the name), `name` (for people to read), `platform`, `late`,
    `order` (later attempts sort higher), and `prefix`: the platform's own name for the submission, which bulk
    feedback uploads match.  `key` is one per person (person_key)."""
    id: str
    name: str
    platform: str
    late: bool = False
    order: tuple = ()
    prefix: str = ""
    folder: str = None        # plain folders: the folder that names the person
    within: tuple = ()        # plain folders: what tells submissions in it apart (sub-folders, the name in the file)
    claim: str = field(default=None, compare=False)   # a name the student chose that claims another id

    @property
    def key(self):
        return person_key(self.platform, self.id)


def _label(root_label, rel):
    return "/".join((root_label, *rel)) if root_label else "/".join(rel)


def _skipped(parts):
    return any(part.startswith(".") or part in SKIPPED for part in parts)


def _zip_files(path, label, within=None, outer=()):
    """The entries of the zip at `path` (or, `within` = (its name, its info) in the zip at `path`, of that inner zip),
    as Files (problems named, nothing extracted).  `outer`: the inner zip's path parts, which its files' start with."""
    size, mtime = (within[1].file_size, _zip_time(within[1])) if within else (path.stat().st_size, path.stat().st_mtime)
    try:
        with contextlib.ExitStack() as stack:
            if within:
                zf = stack.enter_context(zipfile.ZipFile(stack.enter_context(
                    stack.enter_context(zipfile.ZipFile(path)).open(within[0]))))
            else:
                zf = stack.enter_context(zipfile.ZipFile(path))
            return _entries(zf, path, label, within, outer, size, mtime)
    except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as exc:
        return [File(label, outer, size, mtime, (path, within[0]) if within else path,
                     f"not a zip that can be read: {exc}")]


def _entries(zf, path, label, within, outer, size, mtime):
    infos = [i for i in zf.infolist() if not i.is_dir()]
    if len(infos) > MAX_MEMBERS:
        return [File(label, outer, size, mtime, (path, within[0]) if within else path,
                     f"not read: the zip holds {len(infos)} files, more than {MAX_MEMBERS} (no class hands in that "
                     f"many)")]
    files = []
    for info in infos:
        name = info.filename.replace("\\", "/")
        rel = PurePosixPath(name).parts
        where = f"{label}:{name}"
        source = (path, within[0], info.filename) if within else (path, info.filename)
        problem = None
        if name.startswith("/") or re.match(r"^[A-Za-z]:", name) or ".." in rel:
            problem = f"not read: its path {name!r} climbs out of the zip"
        elif _skipped(rel):
            continue
        elif stat.S_ISLNK(info.external_attr >> 16):
            with zf.open(info) as link:
                target = link.read(200).decode("utf-8", "replace")
            problem = f"not read: a link inside the zip (to {target!r}), not a file"
        elif info.flag_bits & 0x1:
            problem = "not read: an encrypted entry of the zip"
        elif name.lower().endswith(".zip") and within:
            problem = "not read: a zip inside a zip inside the download"
        elif name.lower().endswith(".zip") and info.file_size > MAX_ZIP_BYTES:
            problem = (f"not read: a zip of {info.file_size / 1e6:.0f} MB inside the download, more than a learner "
                       f"hands in")
        elif name.lower().endswith(".zip"):
            files += _zip_files(path, where, (info.filename, info), (*outer, *rel))
            continue
        elif info.file_size > MAX_BYTES:
            problem = f"not graded: {info.file_size / 1e6:.0f} MB is larger than any notebook of the course"
        files.append(File(where, (*outer, *rel), info.file_size, _zip_time(info), source, problem))
    if not files:
        return [File(label, outer, size, mtime, (path, within[0]) if within else path, "not graded: an empty zip")]
    return files


def _zip_time(info):
    import time
    try:
        return time.mktime(info.date_time + (0, 0, -1))
    except (OverflowError, ValueError):
        return 0.0


KINDS = {stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a character device",
         stat.S_IFBLK: "a block device"}


def _walk(folder):
    """(path, lstat) of everything under `folder`, sorted, links never followed, hidden and skipped names left out."""
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith(".") or entry.name in SKIPPED:
            continue
        st = entry.stat(follow_symlinks=False)
        if stat.S_ISDIR(st.st_mode):
            yield from _walk(entry.path)
        else:
            yield Path(entry.path), st


def _problem(path, st):
    """Why a thing found in the class folder is not read (a link, a FIFO, a device), or None for a plain file."""
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.readlink(path)
        except OSError:
            target = "?"
        return f"not graded: a link to {target!r}, not a file (links are never followed)"
    if not stat.S_ISREG(st.st_mode):
        return f"not graded: {KINDS.get(stat.S_IFMT(st.st_mode), 'not a plain file')}, not a file"
    return None


def find(paths):
    """[File] under the files, folders and zips given, in a stable order, each file once; hidden files and folders
    (.ipynb_checkpoints), __MACOSX and __pycache__ skipped.  Links (to files or folders), FIFOs and devices in a
    folder are never followed or opened: each is a File with its `problem`.  Raises UsageError for a path that does
    not exist or when nothing is found."""
    found, seen = [], set()
    for arg in map(Path, paths):
        if not arg.exists():
            raise UsageError(f"{arg} does not exist: give the folder or zip that holds the class's notebooks, or the "
                             f"notebook files")
        root_label = (arg.resolve().parent.name if arg.is_file() else arg.name) or str(arg)
        if arg.is_file():
            candidates = [(arg, (), arg.stat())]                  # given by the teacher: followed if a link
        else:
            candidates = [(p, p.relative_to(arg).parts, st) for p, st in _walk(arg)]
        for path, rel, st in candidates:
            key = path.absolute()                                 # given twice (a folder and a file in it)
            if key in seen:
                continue
            seen.add(key)
            label = _label(root_label, rel or (path.name,))
            problem = _problem(path, st)
            if problem is None and path.suffix.lower() == ".zip":
                found += _zip_files(path, label)
            else:
                found.append(File(label, rel or (path.name,), st.st_size, st.st_mtime, path, problem,
                                  (st.st_dev, st.st_ino) if st.st_nlink > 1 and problem is None else None))
    if not found:
        raise UsageError(f"no files found under {', '.join(map(str, paths))}: give the folder or zip that holds the "
                         f"class's notebooks, or the notebook files")
    return found


def compile_pattern(text):
    """The teacher's `--pattern`, compiled and checked: a regex with a named group `student_id`."""
    try:
        regex = re.compile(text)
    except re.error as exc:
        raise UsageError(f"--pattern {text!r} is not a regular expression ({exc}); e.g. "
                         f"--pattern '(?P<student_id>[^/_]+)_(?P<name>[^/]+)/'") from None
    unknown = set(regex.groupindex) - set(PATTERN_GROUPS)
    if "student_id" not in regex.groupindex or unknown:
        raise UsageError(f"--pattern {text!r} needs a named group (?P<student_id>...) for the person"
                         + (f", and knows no group {', '.join(sorted(unknown))}" if unknown else "") +
                         f"; its groups may be {', '.join(PATTERN_GROUPS)}")
    return regex


def normalised(name):
    """A name as one person is known by: Unicode NFKC (full-width letters are letters).  Nothing else is changed:
    'alice ' is not 'alice' (lesson_tools.grading.flags flags the two for a person)."""
    return unicodedata.normalize("NFKC", name)


def person(file, stem=None, pattern=None):
    """The Person who handed `file` in (the rules in the module's docstring), or None when `pattern` is given and
    does not match.  `stem`: the course notebook it was matched to, left out of names taken from file names."""
    path = "/".join(file.rel)
    if pattern is not None:
        m = pattern.search(path)
        if not m or not m.group("student_id"):
            return None
        groups = m.groupdict()
        sid = normalised(groups["student_id"])
        attempt = int(groups["attempt"]) if (groups.get("attempt") or "").isdigit() else 0
        return Person(sid, normalised(groups.get("name") or sid), "pattern",
                      bool(groups.get("late")), (attempt, file.mtime, file.label), sid)
    parts = file.label.replace(":", "/").split("/")
    found = next(((k, kind, m) for k, part in enumerate(parts)      # outermost first: what the platform wrote
                  for kind, m in (("canvas", CANVAS.match(part)), ("moodle", MOODLE.match(part))) if m), None)
    if found is not None:
        k, kind, m = found
        g = m.groupdict()
        chosen = g["rest"] if kind == "moodle" else g["original"] + (g["ext"] or "")   # the student's own name
        claim = _claim([chosen, *parts[k + 1:]], g["user_id"], kind, parts[k])
        if kind == "canvas":
            prefix = f"{g['name']}{g['late'] or ''}_{g['user_id']}_{g['attachment_id']}"
            return Person(g["user_id"], normalised(g["name"]), "canvas", bool(g["late"]),
                          (int(g["attachment_id"]), int(g["resubmission"] or 0), file.mtime, file.label), prefix,
                          claim=claim)
        prefix = f"{g['name']}_{g['user_id']}_assignsubmission_{g['plugin']}_"
        return Person(g["user_id"], normalised(g["name"]), "moodle", False, (file.mtime, file.label), prefix,
                      claim=claim)
    from_file = _name_in_file(file.rel[-1], stem)
    if len(file.rel) > 1:
        name = normalised(file.rel[0])
        return Person(name, name, "folder", False, (file.mtime, file.label), name,
                      folder=file.rel[0], within=(*file.rel[1:-1], from_file))
    name = normalised(from_file or Path(file.label.split(":")[0]).stem or "(unknown)")
    if not from_file and len(file.label.split("/")) > 1:
        name = normalised(file.label.split("/")[-2])         # nothing left of the file name: the folder given
    return Person(name, name, "file name", False, (file.mtime, file.label), name)


def _claim(inner, own_id, platform, written):
    """A note when a part the student named (`inner`: below the part the platform wrote) claims another id."""
    for part in inner:
        for kind, m in (("Canvas user", CANVAS.match(part)), ("Moodle participant", MOODLE.match(part))):
            if m and m.group("user_id") != own_id:
                return (f"the name {part!r}, which the student chose, claims to be {kind} {m.group('user_id')}'s; "
                        f"graded as {platform} id {own_id}'s, from {written!r}, which the platform wrote")
    return None


def _name_in_file(filename, stem):
    """What a file name says beyond the notebook: 's1042_02_model (1).ipynb' -> 's1042'."""
    name = Path(filename).stem
    if stem:
        name = re.sub(re.escape(stem), "", name, flags=re.IGNORECASE)
    return DOWNLOAD_SUFFIX.sub("", name.strip(" _-.")).strip(" _-.")


def merged_folders(submissions):
    """{folder: [what tells its people apart]} for every plain folder that holds the same course notebook under two
    or more names: sub-folders (`class/alice/02_model.ipynb`, `class/bob/...`) or names in the files
    (`class/alice_02_model.ipynb`, `class/bob_02_model.ipynb`).  A student's own resubmissions (`02_model (1)`, a
    file carrying the folder's own name) are no such names.  Grading refuses these folders rather than merge people."""
    seen = {}
    for sub in submissions:
        who = sub.person
        if who is not None and who.platform == "folder" and sub.notebook:
            own = normalised(who.folder).casefold()
            parts = [p for p in who.within if p and normalised(p).casefold() != own]
            if parts:
                seen.setdefault((who.folder, sub.notebook), set()).add("/".join(parts))
    merged = {}
    for (folder, _), names in seen.items():
        if len(names) > 1:
            merged.setdefault(folder, set()).update(names)
    return {folder: sorted(names) for folder, names in merged.items()}
