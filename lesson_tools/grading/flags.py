"""What a person should look at across a class, beside the verdicts: names that look alike (the same work handed in
by two people is lesson_tools.grading.identical's, after grading).

    notes = flags.class_notes(submissions)     # {submission label: [note, ...]}

- A name with an invisible character (zero-width space, a format character), a space at either end, letters of
  several scripts, or letters that look like Latin ones but are not (all-Cyrillic `јое` beside `joe`), is flagged
  with the name it looks like: two such people are two students, and a person should check they are not one, or an
  impostor.  Look-alikes are found with `confusable_homoglyphs` (Unicode's confusables table), not a table written
  here.
- A hard link to one of the course's own files is not graded at all (`course_link`).
"""
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


def course_link(file, course_inodes):
    """The course's own file a hard link in the class folder shares its inode with, or None."""
    return course_inodes.get(file.inode) if file.inode is not None else None


def class_notes(submissions):
    """{submission label: [notes]} across the class: look-alike names."""
    notes = {}
    people = {s.person.key: s.person.name for s in submissions if s.person.platform != "unmatched"}
    by_name = name_notes(sorted(set(people.values())))
    for sub in submissions:
        if sub.person.name in by_name and sub.person.platform != "unmatched":
            notes.setdefault(sub.label, []).append(by_name[sub.person.name])
    return notes
