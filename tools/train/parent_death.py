"""A training process that ends with the process that started it.

Trainers are stopped with kill (or kill -9) of the command a person started, and a process that
outlives it goes on training unseen on the cores of the next run: train.py's --processes workers
(PyTorch ends them with a SIGINT when their parent dies, which a run started in the background by
a shell ignores), and the train.py that milestone.py --run starts.
"""
import os
import sys

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def end_with_parent(sig, parent):
    """Asks the kernel to send `sig` to this process when `parent` ends (Linux), and ends now if it
    has already ended before the request was made (this process was then handed to another parent)."""
    if sys.platform.startswith("linux"):
        import ctypes
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(sig))
    if os.getppid() != parent:
        os._exit(1)
