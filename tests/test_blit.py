"""The PNG writer of lesson_course.ui.blit, read back by an independent decoder (Pillow), and the figures it encodes."""
import io
import zlib

import numpy as np
import PIL.Image
import pytest
from matplotlib.figure import Figure

from lesson_course.ui.blit import BlittedFigure, png_bytes


@pytest.mark.parametrize("shape", [(1, 1), (7, 3), (368, 560), (13, 401)])
def test_png_bytes_is_a_png_that_pillow_reads_back_pixel_for_pixel(shape):
    rgb = np.random.default_rng(sum(shape)).integers(0, 256, (*shape, 3), dtype=np.uint8)
    png = png_bytes(rgb)
    image = PIL.Image.open(io.BytesIO(png))
    image.load()                                       # decodes every row and checks the chunks' CRCs
    assert image.format == "PNG" and image.mode == "RGB" and image.size == (shape[1], shape[0])
    np.testing.assert_array_equal(np.asarray(image), rgb)


def test_png_bytes_takes_a_strided_view_and_compresses_a_flat_image():
    rgba = np.zeros((200, 300, 4), np.uint8)
    rgba[..., :3] = (255, 255, 255)
    rgba[50:60, :, :3] = (0, 128, 255)
    rgba[..., 3] = 7                                   # alpha is dropped, not mixed into the colours
    png = png_bytes(rgba[..., :3])
    np.testing.assert_array_equal(np.asarray(PIL.Image.open(io.BytesIO(png))), rgba[..., :3])
    assert len(png) < 200 * 300 * 3 / 50


def test_the_png_chunks_are_well_formed():
    png = png_bytes(np.full((2, 5, 3), 9, np.uint8))
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, at = [], 8
    while at < len(png):
        n = int.from_bytes(png[at:at + 4], "big")
        kind, data, crc = png[at + 4:at + 8], png[at + 8:at + 8 + n], png[at + 8 + n:at + 12 + n]
        assert int.from_bytes(crc, "big") == zlib.crc32(kind + data)
        chunks.append((kind, data))
        at += 12 + n
    assert [k for k, _ in chunks] == [b"IHDR", b"IDAT", b"IEND"]
    assert chunks[0][1] == (5).to_bytes(4, "big") + (2).to_bytes(4, "big") + bytes([8, 2, 0, 0, 0])
    rows = zlib.decompress(chunks[1][1])
    assert rows == (b"\x00" + b"\x09" * 15) * 2      # each row: filter type 0, then its pixels


def test_a_blitted_figure_encodes_what_its_canvas_shows():
    fig = Figure(figsize=(2, 1.5), dpi=50)
    ax = fig.subplots()
    (line,) = ax.plot([0, 1], [0, 1], color="red", lw=3)
    blitted = BlittedFigure(fig, [line])
    first = np.asarray(PIL.Image.open(io.BytesIO(blitted.full())))
    np.testing.assert_array_equal(first, np.asarray(blitted.canvas.buffer_rgba())[..., :3])
    line.set_ydata([1, 0])
    moved = np.asarray(PIL.Image.open(io.BytesIO(blitted.fast())))
    np.testing.assert_array_equal(moved, np.asarray(blitted.canvas.buffer_rgba())[..., :3])
    assert (moved != first).any()
    line.set_animated(False)                           # a full redraw of the moved line: what blitting must give
    fig.canvas.draw()
    np.testing.assert_array_equal(moved, np.asarray(fig.canvas.buffer_rgba())[..., :3])


@pytest.mark.parametrize("bad", [np.zeros((4, 5, 3)), np.zeros((4, 5, 4), np.uint8), np.zeros((4, 15), np.uint8),
                                 np.zeros((0, 5, 3), np.uint8), [[[0, 0, 0]]], None])
def test_png_bytes_refuses_what_is_not_an_rgb_byte_image(bad):
    with pytest.raises(ValueError, match=r"png_bytes needs a non-empty \(h, w, 3\) uint8 RGB array, got"):
        png_bytes(bad)
