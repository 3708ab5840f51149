"""Kernels the tests start side by side talk over Unix sockets (ipc), each under a path prefix of its own.

Over TCP, jupyter_client picks a kernel's ports by binding free ones and letting them go; two kernels started at
the same moment can pick the same port, and one of them dies before it replies ("Kernel died before replying to
kernel_info").  The grader's kernels use ipc for the same reason (lesson_tools.grading.kernel).
"""
import tempfile
from pathlib import Path


def ipc_prefix(name):
    """A fresh, short path prefix for one kernel's sockets (a Unix socket path must stay under 108 bytes)."""
    return str(Path(tempfile.mkdtemp(prefix="k")) / name)


def nbconvert_options(name):
    """The options that make `jupyter nbconvert --execute` start its kernels over ipc under their own prefix."""
    return ["--KernelManager.transport=ipc", f"--KernelManager.ip={ipc_prefix(name)}"]
