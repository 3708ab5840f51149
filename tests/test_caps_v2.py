"""cgroup v2, as far as a machine with cgroup v1 can check it: the grader's caps made in a unified hierarchy's files
(a fake one here: the folders and files the kernel would show), the leaf it moves itself into, the controllers it
gives, what it refuses.  Not run here: the kernel enforcing memory.max and pids.max, cgroup.kill ending processes,
a sandbox joining a v2 group (tests/test_caps.py runs all of that on cgroup v1)."""
import os

import pytest

from lesson_tools.grading import caps


@pytest.fixture
def unified(tmp_path, monkeypatch):
    """A cgroup2 mount at tmp_path/cg holding this process in its group /job, and only cgroup v2 mounted."""
    cg = tmp_path / "cg"
    job = cg / "job"
    job.mkdir(parents=True)
    (cg / "cgroup.controllers").write_text("cpuset cpu io memory pids\n")
    (cg / "cgroup.subtree_control").write_text("")
    (job / "cgroup.controllers").write_text("cpu io memory pids\n")
    (job / "cgroup.subtree_control").write_text("")
    (job / "cgroup.procs").write_text(f"{os.getpid()}\n")
    (tmp_path / "mountinfo").write_text(f"35 25 0:30 / {cg} rw,nosuid,nodev shared:9 - cgroup2 cgroup2 rw,nsdelegate\n")
    (tmp_path / "cgroup").write_text("0::/job\n")
    monkeypatch.setattr(caps, "MOUNTINFO", str(tmp_path / "mountinfo"))
    monkeypatch.setattr(caps, "OWN", str(tmp_path / "cgroup"))
    caps._chosen.cache_clear()
    yield cg, job
    caps._chosen.cache_clear()


def test_in_a_group_of_its_own_the_grader_moves_to_a_leaf_and_caps_the_groups_beside_it(unified):
    cg, job = unified
    group = caps.GroupV2(1024, 64)
    assert (job / "grader" / "cgroup.procs").read_text() == str(os.getpid())       # itself, moved first
    assert set((job / "cgroup.subtree_control").read_text().split()) == {"+memory", "+pids", "+cpu"}
    made = os.path.dirname(group.procs[0])
    assert os.path.dirname(made) == str(job) and os.path.basename(made).startswith("lesson-grade-")
    assert (open(os.path.join(made, "memory.max")).read(), open(os.path.join(made, "pids.max")).read()) == (
        str(1024 * 2**20), "64")
    assert group.cpu_file == os.path.join(made, "cpu.stat")


def test_readings_of_a_v2_group(unified):
    group = caps.GroupV2(512, 8)
    folder = os.path.dirname(group.procs[0])
    with open(os.path.join(folder, "cpu.stat"), "w") as f:
        f.write("usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\n")
    with open(os.path.join(folder, "memory.events"), "w") as f:
        f.write("low 0\nhigh 0\nmax 3\noom 1\noom_kill 2\n")
    assert group.cpu_seconds() == 2.5 and caps.cpu_seconds(group.cpu_file) == 2.5 and group.oom_kills() == 2
    open(os.path.join(folder, "cgroup.kill"), "w").close()
    group.kill()
    assert open(os.path.join(folder, "cgroup.kill")).read() == "1"


def test_a_group_shared_with_other_processes_is_left_alone(unified):
    cg, job = unified
    (job / "cgroup.procs").write_text(f"{os.getpid()}\n1\n")                    # pid 1 is not the grader's
    with pytest.raises(OSError, match=r"shares its cgroup v2 group /job with 1 other process\(es\); run it in a "
                                      r"group of its own: systemd-run --scope -p Delegate=yes"):
        caps.GroupV2(1024, 64)
    assert not (job / "grader").exists() and (job / "cgroup.subtree_control").read_text() == ""


def test_at_the_root_of_the_hierarchy_groups_are_made_there(unified, tmp_path):
    cg, _ = unified
    (tmp_path / "cgroup").write_text("0::/\n")
    group = caps.GroupV2(1024, 64)
    assert os.path.dirname(os.path.dirname(group.procs[0])) == str(cg) and not (cg / "grader").exists()


def test_a_missing_controller_is_named(unified):
    _, job = unified
    (job / "cgroup.controllers").write_text("cpu io\n")
    with pytest.raises(OSError, match=r"is not given the memory, pids controller"):
        caps.GroupV2(1024, 64)


def test_v2_is_chosen_where_v1_is_not_mounted_and_the_choice_is_stated(unified):
    assert caps.kind().startswith("cgroup v2, under ") and caps.problem() is None
    assert isinstance(caps.Group(1024, 64), caps.GroupV2)


def test_a_worker_born_in_the_graders_leaf_makes_its_groups_beside_it(unified, tmp_path):
    cg, job = unified
    caps.GroupV2(1024, 64)                                   # the grader's first process: moves into job/grader
    (tmp_path / "cgroup").write_text("0::/job/grader\n")     # a worker it started since
    group = caps.GroupV2(1024, 64)
    assert os.path.dirname(os.path.dirname(group.procs[0])) == str(job) and not (job / "grader" / "grader").exists()
