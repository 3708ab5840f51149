"""What a learning platform downloads, read as it is: every file under the paths given, zips read in place, and the
person each file belongs to.

    files = find(["downloads/"])                     # [File], zips opened in place (never unpacked to disk)
    who = person(file, "02_model", pattern=None)     # Person: identity, display name, late, attempt order

Each PATH given is a download (or one submission): a platform writes its names on its first level, and on the top
of a download's zip found there (a zip no platform named, as Canvas's `submissions.zip`); everything below a
platform's name is the person's own.  Who a file belongs to, the first rule that applies:

1. `--pattern REGEX` given: a regex with a named group `student_id` (and optionally `name`, `late`, `attempt`),
   searched in the file's path relative to the folder or zip given ('/' between parts), as nbgrader's
   FileNameCollectorPlugin does.  A file it does not match is not graded (its row says so): nothing is guessed.
2. Canvas and Moodle, read only where the platform writes: the PATH's own name (a Moodle folder given, the folder
   of a file given, a zip given), then the first level under it.  Canvas's `lastnamefirstname[_LATE]_USERID_
   ATTACHMENTID_ORIGINAL[-N].ext` (a file, or a learner's zip; the user id is the person; Canvas writes the name in
   letters and digits only, so its whole prefix is Canvas's); Moodle's folder
   `Full Name_PARTICIPANTID_assignsubmission_PLUGIN_`, read from its right end, since a full name may hold anything
   (`…_777_assignsubmission_file`); in a download without folders the same prefix starts each file name, and a name
   that holds two such prefixes with different ids is not graded (which one Moodle wrote cannot be known).  What
   the student named (ORIGINAL, what is inside Moodle's folder or a learner's zip) never decides: a name there that
   claims another person's id stays its owner's, and the person's `claim` says so for the teacher.  A name that
   reads as both platforms' (a Canvas file whose own name looks like Moodle's) is read as the platform whose names
   the rest of its download holds (`written_by`).
3. A plain folder: the first folder under the PATH (or under the download's zip) is the person; a file directly in
   it is named by its file name less the course notebook's name and a browser's download suffix
   (`s1042_02_model (1).ipynb` -> s1042), or, with nothing left, by the folder or zip that holds it.  A folder that
   holds one notebook for several people is refused by the grader (`merged_folders`); a folder holding a download
   is one such, and the message says to give it as a PATH of its own.

Zips are read in place, never unpacked to disk, under lesson_tools.grading.limits: a platform's download at most
MAX_MEMBERS entries, each read when it is identified, at most MAX_BYTES of it.  A learner's own zip (one with a
platform's name, inside a download's zip or anywhere in a person's folder) is read whole and once, before anything
of it is parsed, counting its entries, the bytes it expands to (as read: the sizes its directory claims are never
trusted) and the CPU time reading it takes; beyond a limit it is one NOT GRADED file, the limit named.  An entry
whose path climbs out (`..`, absolute), a link, an encrypted entry or a zip inside a learner's zip is a file with a
`problem` (a row of its own, never read).  A name a zip holds several times is read once: the last entry of that
name, as unzip and Python's zipfile read it, the teacher told of the others (`note`).

Hand-in time (`File.mtime`, which attempts are ordered by and late work is measured with) comes from the platform
only: a download zip's entry's date, a file's date on disk, and for what is inside a learner's zip the date of the
zip itself, never a date the learner's zip tool wrote.  Every name is `text.readable` (a byte that is not UTF-8 is
shown as its escape, two names stay two).
"""
import dataclasses
import errno
import io
import os
import re
import stat
import time
import unicodedata
import zipfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from . import limits
from .text import decoded, readable, shown

SKIPPED = ("__MACOSX", "__pycache__")
DOWNLOAD_SUFFIX = re.compile(r"(\s*\(\d+\)|[\s_-]*copy(\s*\d+)?)+$", re.IGNORECASE)
CANVAS = re.compile(r"^(?P<name>[^\W_]+?)(?P<late>_LATE)?_(?P<user_id>\d+)_(?P<attachment_id>\d+)_"
                    r"(?P<original>.+?)(?:-(?P<resubmission>\d+))?(?P<ext>\.[^./]+)?$", re.DOTALL)
MOODLE_FOLDER = re.compile(r"^(?P<name>.+)_(?P<user_id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_$", re.DOTALL)
MOODLE_PREFIX = re.compile(r"(?=_(?P<user_id>\d+)_assignsubmission_(?P<plugin>[a-z]+)_)")
PATTERN_GROUPS = ("student_id", "name", "late", "attempt")
CHUNK = 1024 * 1024


class UsageError(Exception):
    """Grading cannot start: a path that does not exist, an option out of range."""


@dataclass(frozen=True)
class File:
    """One file handed in: `label` (how rows name it: the PATH's name, then the path under it, ':' into a zip),
    `rel` (its path parts under the folder or zip given), `size`, `mtime` (the hand-in time, seconds: see the
    module's docstring), `source` (the path on disk, or (zip path, member name[, inner member])), `problem` (why it
    is not read), `outer` (the PATH's own names a platform may have written: the folder given, or the folder holding
    the file given and the zip given), `top` (rel[top] is the first level the platform wrote: 1 inside a download's
    zip found in the folder given), `note` (for the teacher: a zip that held its name several times), `data` (its
    bytes, read already: a learner's zip is read whole), `written_by` (the platform that wrote its download's first
    level, when its names there are all one platform's: a name there is read as that platform's only)."""
    label: str
    rel: tuple
    size: int
    mtime: float
    source: object = field(repr=False)
    problem: str = None
    inode: tuple = None       # (device, inode) of a file with several hard links
    outer: tuple = ()
    top: int = 0
    note: str = None
    data: bytes = field(default=None, repr=False, compare=False)
    written_by: str = None    # the one platform whose names its download's first level holds ("canvas", "moodle")

    @property
    def handed(self):
        """Its path from what the platform wrote on ('/' between parts): how pages and exports name it, never with
        the teacher's folders."""
        return "/".join(self.rel[self.top:]) or "/".join(self.rel) or self.label

    def read_bytes(self):
        """The file's bytes, at most MAX_BYTES + 1 of them (a larger file is refused by its reader)."""
        if self.data is not None:
            return self.data[:limits.MAX_BYTES + 1]
        if isinstance(self.source, tuple):
            archive, member = self.source
            with zipfile.ZipFile(archive) as zf, zf.open(member) as f:
                return f.read(limits.MAX_BYTES + 1)
        with open(self.source, "rb") as f:
            return f.read(limits.MAX_BYTES + 1)


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
    doubt: str = field(default=None, compare=False)   # why the platform's name cannot say who (then not graded)

    @property
    def key(self):
        return person_key(self.platform, self.id)


def _label(root_label, rel):
    return "/".join((root_label, *rel)) if root_label else "/".join(rel)


def _skipped(parts):
    return any(part.startswith(".") or part in SKIPPED for part in parts)


# ---------------------------------------------------------------------- zips
ZIP_ERRORS = (zipfile.BadZipFile, zipfile.LargeZipFile, OSError, EOFError, NotImplementedError, ValueError,
              RuntimeError, IndexError, KeyError)     # what zipfile, zlib, bz2 and lzma raise on what they cannot read


class OverLimit(Exception):
    """A learner's zip went past one of its limits while it was read (the message says which)."""


class Budget:
    """What reading one learner's zip may use (lesson_tools.grading.limits): bytes counted as they come out of the
    decompressor, and CPU seconds."""

    def __init__(self, claimed):
        self.bytes, self.claimed, self.start = 0, claimed, time.process_time()

    def check(self):
        if self.bytes > limits.MAX_UNZIPPED_BYTES:
            raise OverLimit(f"not read: the zip expands to more than {limits.MAX_UNZIPPED_BYTES / 2**20:.0f} MB "
                            f"(counted while reading it; its directory claims {self.claimed / 2**20:,.0f} MB), more "
                            f"than a learner hands in")
        if time.process_time() - self.start > limits.MAX_UNZIP_SECONDS:
            raise OverLimit(f"not read: reading the zip took more than {limits.MAX_UNZIP_SECONDS:g} s of CPU time "
                            f"after {self.bytes / 2**20:,.0f} MB (a zip made to be slow to unpack)")

    def read(self, zf, info, most):
        """At most `most` + 1 bytes of an entry, each counted."""
        chunks, n = [], 0
        with zf.open(info) as f:
            while n <= most:
                self.check()
                chunk = f.read(min(CHUNK, most + 1 - n))
                if not chunk:
                    break
                chunks.append(chunk)
                n += len(chunk)
                self.bytes += len(chunk)
        self.check()
        return b"".join(chunks)


def _entries(zf):
    """[(info, its name, its parts, how many entries had that name)]: the zip's files (folders left out), each name
    once: the last entry of a name, as unzip and zipfile read it."""
    by_parts = {}
    for info in zf.infolist():
        if info.is_dir():
            continue
        name = readable(info.filename.replace("\\", "/"))
        parts = PurePosixPath(name).parts
        copies = by_parts.get(parts, (None, None, None, 0))[3]
        by_parts[parts] = (info, name, parts, copies + 1)
    return list(by_parts.values())


LEFT_OUT = "left out"          # _entry_problem's answer for an entry no one handed in (__MACOSX, hidden files)


def _entry_problem(zf, info, name, parts, learners):
    """Why a zip entry is not read (None: it is read), or LEFT_OUT for one that is no one's (__MACOSX, hidden)."""
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name) or ".." in parts:
        return f"not read: its path {name!r} climbs out of the zip"
    if _skipped(parts):
        return LEFT_OUT
    if stat.S_ISLNK(info.external_attr >> 16):
        try:
            with zf.open(info) as link:
                target = readable(link.read(200).decode("utf-8", "replace"))
        except ZIP_ERRORS:
            target = "?"
        return f"not read: a link inside the zip (to {target!r}), not a file"
    if info.flag_bits & 0x1:
        return "not read: an encrypted entry of the zip"
    if name.lower().endswith(".zip") and learners:
        return "not read: a zip inside a zip the learner handed in"
    return None


def _copies_note(name, copies):
    return (f"the zip holds {copies} entries named {name!r}: graded once, the last of them (the one unzip keeps); "
            f"the others were not read" if copies > 1 else None)


def _zip_time(info):
    try:
        return time.mktime(info.date_time + (0, 0, -1))
    except (OverflowError, ValueError):
        return 0.0


def download_zip(path, label, prefix, whole_rel, outer, top, size, mtime):
    """The Files of a platform's download zip at `path` (its entries read when they are identified; a learner's zip
    inside it is read now, under its limits); `prefix`: the parts its entries' rel start with, `whole_rel`: the
    zip's own, `top`: the index in its entries' rel of the level the platform named."""
    def whole(problem):
        return [File(label, whole_rel, size, mtime, path, problem, outer=outer)]
    try:
        with zipfile.ZipFile(path) as zf:
            found = [i for i in zf.infolist() if not i.is_dir()]
            if len(found) > limits.MAX_MEMBERS:
                return whole(f"not read: the zip holds {len(found)} files, more than {limits.MAX_MEMBERS} (no class "
                             f"hands in that many)")
            files = []
            for info, name, parts, copies in _entries(zf):
                where, entry_rel, when = f"{label}:{name}", (*prefix, *parts), _zip_time(info)
                problem = _entry_problem(zf, info, name, parts, learners=False)
                if problem == LEFT_OUT:
                    continue
                note = _copies_note(name, copies)
                if problem is None and name.lower().endswith(".zip"):
                    files += learner_zip(lambda zf=zf, info=info: _member(zf, info), where, entry_rel, entry_rel,
                                         outer, top, info.file_size, when, note)
                    continue
                if problem is None and info.file_size > limits.MAX_BYTES:
                    problem = f"not graded: {info.file_size / 1e6:.0f} MB is larger than any notebook of the course"
                files.append(File(where, entry_rel, info.file_size, when, (path, info.filename), problem,
                                  outer=outer, top=top, note=note))
    except ZIP_ERRORS as exc:
        return whole(f"not a zip that can be read: {readable(exc)}")
    return written_by(files) if files else whole("not graded: an empty zip")


def _member(zf, info):
    """The bytes of a learner's zip inside a download's zip, at most MAX_ZIP_BYTES + 1 of them."""
    with zf.open(info) as f:
        return f.read(limits.MAX_ZIP_BYTES + 1)


def learner_zip(opened, label, prefix, whole_rel, outer, top, size, mtime, note=None):
    """The Files of a zip a learner handed in, every entry read now, under the limits (the module's docstring);
    `opened()` gives its bytes or its path; `prefix`, `whole_rel`, `top` as for download_zip.  Each file is dated
    `mtime`, the date of the zip itself (the platform's), never the dates inside it."""
    def whole(problem):
        return [File(label, whole_rel, size, mtime, label, problem, outer=outer, top=top, note=note)]
    budget = Budget(0)
    if size > limits.MAX_ZIP_BYTES:
        return whole(f"not read: a zip of {size / 2**20:,.0f} MB, more than a learner hands in (at most "
                     f"{limits.MAX_ZIP_BYTES / 2**20:.0f} MB)")
    try:
        source = opened()
        if isinstance(source, bytes):
            if len(source) > limits.MAX_ZIP_BYTES:            # (its size in the platform's zip was a claim)
                return whole(f"not read: a zip of more than {limits.MAX_ZIP_BYTES / 2**20:.0f} MB, more than a "
                             f"learner hands in")
            source = io.BytesIO(source)
        with zipfile.ZipFile(source) as zf:
            found = [i for i in zf.infolist() if not i.is_dir()]
            if len(found) > limits.MAX_MEMBERS:
                return whole(f"not read: the zip holds {len(found)} files, more than {limits.MAX_MEMBERS} (no "
                             f"learner hands in that many)")
            budget.claimed = sum(i.file_size for i in found)
            files = []
            for info, name, parts, copies in _entries(zf):
                problem = _entry_problem(zf, info, name, parts, learners=True)
                if problem == LEFT_OUT:
                    continue
                data = None
                if problem is None:
                    try:
                        data = budget.read(zf, info, limits.MAX_BYTES)
                    except ZIP_ERRORS as exc:
                        problem = f"not read: its data cannot be unpacked ({readable(exc)})"
                if data is not None and len(data) > limits.MAX_BYTES:
                    problem, data = f"not graded: more than {limits.MAX_BYTES / 1e6:.0f} MB, larger than any " \
                                    f"notebook of the course", None
                files.append(File(f"{label}:{name}", (*prefix, *parts), len(data) if data is not None else
                                  info.file_size, mtime, (label, info.filename), problem, outer=outer, top=top,
                                  note="; ".join(filter(None, (note, _copies_note(name, copies)))) or None,
                                  data=data))
    except OverLimit as exc:
        return whole(str(exc))
    except ZIP_ERRORS as exc:
        return whole(f"not a zip that can be read: {readable(exc)}")
    return files or whole("not graded: an empty zip")


# ---------------------------------------------------------------------- the folders and files given
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
        try:
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):
            yield from _walk(entry.path)
        else:
            yield Path(entry.path), st


def _problem(path, st):
    """Why a thing found in the class folder is not read (a link, a FIFO, a device), or None for a plain file."""
    if stat.S_ISLNK(st.st_mode):
        try:
            target = decoded(os.readlink(path))
        except OSError:
            target = "?"
        return f"not graded: a link to {target!r}, not a file (links are never followed)"
    if not stat.S_ISREG(st.st_mode):
        return f"not graded: {KINDS.get(stat.S_IFMT(st.st_mode), 'not a plain file')}, not a file"
    return None


def check_path(path):
    """Raise UsageError unless `path` (a PATH given) can be read: it exists, is no link that loops, may be read."""
    try:
        os.stat(path)
    except OSError as exc:
        what = {errno.ELOOP: "is a symbolic link that loops back on itself (or a chain of too many links)",
                errno.ENOENT: "does not exist", errno.ENOTDIR: "does not exist",
                errno.ENAMETOOLONG: "is a name too long for the file system"}.get(
            exc.errno, f"cannot be read ({exc.strerror})")
        raise UsageError(f"{shown(decoded(os.fsdecode(path)))} {what}: give the folder or zip that holds the "
                         f"class's notebooks, or the notebook files") from None


def find(paths):
    """[File] under the files, folders and zips given, in a stable order, each file once; hidden files and folders
    (.ipynb_checkpoints), __MACOSX and __pycache__ skipped.  Links (to files or folders), FIFOs and devices in a
    folder are never followed or opened: each is a File with its `problem`.  Raises UsageError for a path that does
    not exist, loops or cannot be read, or when nothing is found."""
    found, seen, labels = [], set(), set()
    for arg in map(Path, paths):
        check_path(arg)
        if arg.is_file():
            root_label = decoded(arg.resolve().parent.name) or decoded(str(arg.parent))
            name = decoded(arg.name)
            outer = (root_label, name) if arg.suffix.lower() == ".zip" else (root_label,)
            candidates = [(arg, (name,), arg.stat(), True)]           # given by the teacher: followed if a link
        else:
            root_label = decoded(arg.name) or decoded(str(arg))
            outer = (root_label,)
            candidates = [(p, tuple(map(decoded, p.relative_to(arg).parts)), st, False) for p, st in _walk(arg)]
        level = []                                                # what the PATH's first level names
        for path, rel, st, given in candidates:
            key = path.absolute()                                 # given twice (a folder and a file in it)
            if key in seen:
                continue
            seen.add(key)
            label = _label(root_label, rel)
            while label in labels:                                # two PATHs of one name: rows stay apart
                label += "'"
            labels.add(label)
            problem = _problem(path, st)
            if problem is None and path.suffix.lower() == ".zip":
                prefix = () if given else rel                     # a zip given: rel is what is inside it
                learners = (len(rel) > 1 or _platform_named(rel[-1]) or _platform_named(root_label, folder=True))
                if learners:                                      # a learner's: its name, or in a person's folder
                    level += learner_zip(lambda path=path: path, label, prefix, rel, outer, 0, st.st_size,
                                         st.st_mtime)
                else:                                             # a download: the platform names its entries
                    found += download_zip(path, label, prefix, rel, outer, len(prefix), st.st_size, st.st_mtime)
            else:
                level.append(File(label, rel, st.st_size, st.st_mtime, path, problem,
                                  (st.st_dev, st.st_ino) if st.st_nlink > 1 and problem is None else None,
                                  outer=outer))
        found += written_by(level)
    if not found:
        raise UsageError(f"no files found under {', '.join(shown(decoded(os.fsdecode(p))) for p in paths)}: give "
                         f"the folder or zip that holds the class's notebooks, or the notebook files")
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


@dataclass(frozen=True)
class Reading:
    """One way a platform wrote a name: `platform`, `id`, `name` (the person's), `late`, `order` (attempt order
    within the person's files), `prefix` (the platform's own part) and `chosen` (what after it the student named)."""
    platform: str
    id: str
    name: str
    late: bool = False
    order: tuple = ()
    prefix: str = ""
    chosen: str = ""


def readings(part, folder=False):
    """Every Reading of `part` (a file or, `folder`, a folder name) as Canvas or Moodle writes names; [] for none."""
    found = []
    m = CANVAS.match(part)
    if m:
        g = m.groupdict()
        found.append(Reading("canvas", g["user_id"], normalised(g["name"]), bool(g["late"]),
                             (int(g["attachment_id"]), int(g["resubmission"] or 0)),
                             f"{g['name']}{g['late'] or ''}_{g['user_id']}_{g['attachment_id']}",
                             g["original"] + (g["ext"] or "")))
    if folder:
        m = MOODLE_FOLDER.match(part)        # the name is greedy: the id is the one nearest the right end
        moodle = [(m.group("name"), m.group("user_id"), m.group("plugin"), "")] if m else []
    else:                                    # without folders: Moodle's prefix, then the file's own name
        moodle = []
        for m in MOODLE_PREFIX.finditer(part):
            end = m.start() + len(f"_{m['user_id']}_assignsubmission_{m['plugin']}_")
            if m.start() > 0:
                moodle.append((part[:m.start()], m["user_id"], m["plugin"], part[end:]))
    found += [Reading("moodle", uid, normalised(name), False, (), f"{name}_{uid}_assignsubmission_{plugin}_", rest)
              for name, uid, plugin, rest in moodle]
    return found


def _platform_named(name, folder=False):
    return bool(readings(name, folder))


def platform_part(file):
    """(inner, the name, [Reading]) for the outermost part of `file`'s path a platform wrote (`inner`: the parts below
    it, the student's own), or None when no part where a platform writes is a platform's name."""
    parts = [((*file.outer[k + 1:], *file.rel), name, k == 0) for k, name in enumerate(file.outer)]
    if len(file.rel) > file.top:
        parts.append((file.rel[file.top + 1:], file.rel[file.top], len(file.rel) > file.top + 1))
    for inner, name, folder in parts:
        found = readings(name, folder)
        if file.written_by and name is parts[-1][1]:
            found = [r for r in found if r.platform == file.written_by] or found
        if found:
            return inner, name, found
    return None


def written_by(files):
    """`files` (one download's), each told the one platform whose names its first level holds, when the names there
    that read one way only are all one platform's: Canvas's download holds no Moodle name, Moodle's no Canvas name,
    so a name there that reads both ways (a student's file name written like the other platform's) is read as the
    download's platform's."""
    kinds = set()
    for f in files:
        if len(f.rel) > f.top:
            found = readings(f.rel[f.top], folder=len(f.rel) > f.top + 1)
            if len({(r.platform, r.id) for r in found}) == 1:
                kinds.add(found[0].platform)
    if len(kinds) != 1:
        return files
    kind = kinds.pop()
    return [dataclasses.replace(f, written_by=kind) for f in files]


def person(file, stem=None, pattern=None):
    """The Person who handed `file` in (the rules in the module's docstring), or None when `pattern` is given and
    does not match.  `stem`: the course notebook it was matched to, left out of names taken from file names."""
    if pattern is not None:
        path = "/".join(file.rel)
        m = pattern.search(path)
        if not m or not m.group("student_id"):
            return None
        groups = m.groupdict()
        sid = normalised(groups["student_id"])
        attempt = int(groups["attempt"]) if (groups.get("attempt") or "").isdigit() else 0
        return Person(sid, normalised(groups.get("name") or sid), "pattern",
                      bool(groups.get("late")), (attempt, file.mtime, file.label), sid)
    found = platform_part(file)
    if found is not None:
        inner, written, options = found
        if len({(r.platform, r.id) for r in options}) > 1:
            return Person(file.handed, file.handed, "unmatched", order=(file.mtime, file.label), doubt=(
                f"not graded: who handed it in cannot be known: the name {written!r} reads as "
                + " and as ".join(f"{r.platform} id {r.id}'s ({r.name})" for r in options)
                + " (a name a student chose holds another platform's prefix); download the submissions in folders, "
                  "or grade this file with --pattern"))
        r = options[0]
        claim = _claim([r.chosen, *inner], r.id, r.platform, written)
        return Person(r.id, r.name, r.platform, r.late, (*r.order, file.mtime, file.label), r.prefix, claim=claim)
    inner = file.rel[file.top:] or file.rel or (file.label,)
    holder = file.rel[file.top - 1] if file.top and len(file.rel) >= file.top else (file.outer[-1] if file.outer
                                                                                     else "")
    from_file = _name_in_file(inner[-1], stem)
    if len(inner) > 1:
        name = normalised(inner[0])
        return Person(name, name, "folder", False, (file.mtime, file.label), name, folder=inner[0],
                      within=(*inner[1:-1], from_file), claim=_claim(inner[1:], None, "folder", inner[0]))
    name = normalised(from_file or Path(holder).stem or Path(inner[-1]).stem or "(unknown)")
    return Person(name, name, "file name", False, (file.mtime, file.label), name)


def _claim(inner, own_id, platform, written):
    """A note when a part the student named (`inner`: below the part the platform wrote) claims an id that is not
    `own_id` (for a plain folder, None: any id is another's)."""
    for k, part in enumerate(inner):
        for r in readings(part, folder=k < len(inner) - 1):
            if r.id != own_id:
                kind = "Canvas user" if r.platform == "canvas" else "Moodle participant"
                graded = f"{platform} id {own_id}'s" if own_id is not None else f"the {platform} {written!r}'s"
                return (f"the name {part!r}, which the student chose, claims to be {kind} {r.id}'s; graded as "
                        f"{graded}, from {written!r}, which the platform wrote")
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
