"""What every bad-input table asserts: the refusal's type and message, and no message from inside numpy."""
import re

import pytest

NUMPY_WORDS = re.compile(r"operands could not be broadcast|negative dimensions|zero-size array|cannot reshape|"
                         r"Singular matrix|object of type|not supported between|unsupported operand|"
                         r"has no attribute|index \d+ is out of bounds|math domain error")


def assert_refused(call, error, pattern):
    """call() raises `error` whose message matches `pattern` and names nothing from inside numpy."""
    with pytest.raises(error, match=pattern) as info:
        call()
    assert not NUMPY_WORDS.search(str(info.value)), str(info.value)
