"""How prose writes the facts (lesson_lib.facts.FORMATS), on values the course does not use yet."""
from lesson_lib import facts


def test_layers_are_written_layers_times_units_or_each_width():
    assert facts._layers((32, 32)) == "2×32"
    assert facts._layers([16]) == "1×16"
    assert facts._layers((64, 32, 16)) == "64–32–16"                   # unequal widths: each one, en dash between


def test_numbers_are_written_short():
    assert facts._number(0.2) == "0.2" and facts._number(3e-3) == "0.003" and facts._number(1e-3) == "0.001"
    assert facts._number(2000.0) == "2000" and facts._number(1e-5) == "1e-05"
