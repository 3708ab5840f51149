"""What a person should look at across a class, beside the verdicts: names that look alike, and the same work handed
in by two people.

    notes = flags.class_notes(submissions, course_files)     # {submission label: [note, ...]}

- A name with an invisible character (zero-width space, a format character), a space at either end, letters of
  several scripts, or letters that look like Latin ones but are not (all-Cyrillic `јое` beside `joe`), is flagged with the name it looks like:
  two such people are two students, and a person should check they are not one, or an impostor.  Look-alikes are
  found with `confusable_homoglyphs` (Unicode's confusables table), not a table written here.
- A file that is a hard link shared by two people, and a notebook whose code cells are the same as another person's,
  is flagged on both (which of them wrote it is for a person to find out); a hard link to one of the course's own files
  is not graded at all (`course_link`).  Untouched notebooks of the course are the same for everyone and are not
  flagged.
"""
import hashlib
import unicodedata

from confusable_homoglyphs import confusables


def invisible(name):
    """The invisible characters of a name (format, control and separator characters but the plain space)."""
    return [ch for ch in name if unicodedata.category(ch) in ("Cf", "Cc", "Zl", "Zp") or
            (unicodedata.category(ch) == "Zs" and ch != " ")]


def mixed_scripts(name):
    """The scripts (Latin, Cyrillic, Greek, ...) of a name's letters when it mixes several, else None: 'аlice'
    with a Cyrillic 'а' looks like 'alice' and is another student."""
    scripts = sorted({unicodedata.name(ch, "?").split()[0] for ch in name if ch.isalpha()})
    return scripts if len(scripts) > 1 else None


def skeleton(name):
    """What a name looks like: NFKC, no invisible characters or spaces at the ends, case folded, and every letter
    that Unicode lists as confusable with a Latin one replaced by it."""
    text = "".join(ch for ch in unicodedata.normalize("NFKC", name) if ch not in invisible(name)).strip().casefold()
    for found in confusables.is_confusable(text, greedy=True, preferred_aliases=["latin"]) or []:
        latin = [h["c"] for h in found["homoglyphs"] if h["n"].startswith("LATIN")]
        if latin:
            text = text.replace(found["character"], latin[0])
    return text


def name_notes(names):
    """{name: note} for the names a person should look at (see the module's docstring)."""
    by_look = {}
    for name in names:
        by_look.setdefault(skeleton(name), set()).add(name)
    notes = {}
    for name in names:
        why = []
        hidden = invisible(name)
        if hidden:
            why.append("has invisible characters (" + ", ".join(f"U+{ord(ch):04X}" for ch in hidden) + ")")
        if name != name.strip():
            why.append("has a space at its " + ("start" if name[:1].isspace() else "end"))
        scripts = mixed_scripts(name)
        if scripts:
            why.append(f"mixes {' and '.join(s.title() for s in scripts)} letters")
        others = sorted(by_look[skeleton(name)] - {name})
        if others:
            why.append("looks like " + ", ".join(repr(o) for o in others) + ", another student's name")
        if why:
            notes[name] = f"the student name {name!r} {' and '.join(why)}: check it is the student you think"
    return notes


def digest(code):
    """What a notebook's author wrote, as a hash of its code cells' sources (`code`, in order: outputs, metadata and
    how the file was saved left out)."""
    return hashlib.sha256("\n\0\n".join(source.strip() for source in code).encode("utf-8")).hexdigest()


def course_link(file, course_inodes):
    """The course's own file a hard link in the class folder shares its inode with, or None."""
    return course_inodes.get(file.inode) if file.inode is not None else None


def class_notes(submissions, course_digests=frozenset()):
    """{submission label: [notes]} across the class: look-alike names, shared hard links, identical notebooks of
    two people (`course_digests`: digests of the course's own notebooks, which everyone may hand in untouched)."""
    notes = {}
    people = {s.person.key: s.person.name for s in submissions if s.person.platform != "unmatched"}
    by_name = name_notes(sorted(set(people.values())))
    for sub in submissions:
        if sub.person.name in by_name and sub.person.platform != "unmatched":
            notes.setdefault(sub.label, []).append(by_name[sub.person.name])
    digests = {s.label: digest(s.code) for s in submissions if s.code}
    for key, what in ((lambda s: s.file.inode, "the same file (a hard link) as"),
                      (lambda s: digests.get(s.label) if digests.get(s.label) not in course_digests else None,
                       "the same code, cell for cell, as")):
        groups = {}
        for sub in submissions:
            k = key(sub)
            if k is not None:
                groups.setdefault(k, []).append(sub)
        for group in groups.values():
            if len({s.person.key for s in group}) < 2:
                continue
            for sub in group:
                others = [o for o in group if o.person.key != sub.person.key]
                notes.setdefault(sub.label, []).append(
                    f"{what} {', '.join(f'{o.label} ({o.student})' for o in others[:3])}: identical work handed in "
                    f"by two people, for a person to look at")
    return notes
