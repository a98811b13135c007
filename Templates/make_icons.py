#!/usr/bin/env python3
"""Draws the templates' icons: TemplateIcon.png (48 x 48) and TemplateIcon@2x.png (96 x 96).

A purple rounded square, as Xcode's own template icons are, with a white glyph: a loop with an
arrowhead for the feature (an action goes round once: dispatch, reduce, observe) and a check mark
for its tests. Standard library only; the output is the same bytes on every run, so regenerating
shows in `git diff` only when the drawing changes.

    python3 Templates/make_icons.py
"""

import math
import os
import struct
import zlib

TOP = (0x8A, 0x5C, 0xD6)  # gradient, top of the square
BOTTOM = (0x5E, 0x35, 0xA8)  # and bottom
GLYPH = (0xFF, 0xFF, 0xFF)
SAMPLES = 4  # per pixel and axis: 16 samples smooth the edges


def rounded_square(x, y):
    """Inside the square that fills the canvas but a margin, with corners like Xcode's icons."""
    half, radius = 0.40, 0.10
    dx = max(abs(x - 0.5) - (half - radius), 0.0)
    dy = max(abs(y - 0.5) - (half - radius), 0.0)
    return dx * dx + dy * dy <= radius * radius


def loop(x, y):
    """A ring open at the top right, and an arrowhead at its clockwise end."""
    cx, cy, radius, width = 0.5, 0.52, 0.19, 0.065
    angle = math.degrees(math.atan2(cy - y, x - cx)) % 360  # 0 at 3 o'clock, counterclockwise
    on_ring = abs(math.hypot(x - cx, y - cy) - radius) <= width / 2 and not 20 <= angle <= 75
    # Arrowhead at 75 degrees, pointing clockwise (towards smaller angles).
    end = math.radians(75)
    tip_x, tip_y = cx + radius * math.cos(end), cy - radius * math.sin(end)
    forward = (math.sin(end), math.cos(end))  # the clockwise tangent, in image coordinates
    outward = (math.cos(end), -math.sin(end))
    along = (x - tip_x) * forward[0] + (y - tip_y) * forward[1]
    across = (x - tip_x) * outward[0] + (y - tip_y) * outward[1]
    length, spread = 0.12, 0.10
    in_head = 0 <= along <= length and abs(across) <= spread * (1 - along / length)
    return on_ring or in_head


def segment_distance(x, y, ax, ay, bx, by):
    t = ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)
    t = min(max(t, 0.0), 1.0)
    return math.hypot(x - (ax + t * (bx - ax)), y - (ay + t * (by - ay)))


def check(x, y):
    """A check mark with round ends."""
    width = 0.075
    short = segment_distance(x, y, 0.31, 0.52, 0.44, 0.65)
    long = segment_distance(x, y, 0.44, 0.65, 0.70, 0.36)
    return min(short, long) <= width / 2


def render(size, glyph):
    rows = []
    for py in range(size):
        row = bytearray([0])  # filter type: none
        for px in range(size):
            square = mark = 0
            for sy in range(SAMPLES):
                for sx in range(SAMPLES):
                    x = (px + (sx + 0.5) / SAMPLES) / size
                    y = (py + (sy + 0.5) / SAMPLES) / size
                    if rounded_square(x, y):
                        square += 1
                        mark += glyph(x, y)
            total = SAMPLES * SAMPLES
            t = (py + 0.5) / size
            fill = [round(a + (b - a) * t) for a, b in zip(TOP, BOTTOM)]
            if square:
                share = mark / square
                color = [round(f + (g - f) * share) for f, g in zip(fill, GLYPH)]
            else:
                color = [0, 0, 0]
            row += bytes(color) + bytes([round(255 * square / total)])
        rows.append(bytes(row))
    return png(size, b"".join(rows))


def png(size, raw):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", size, size, 8, 6, 0, 0, 0)  # 8-bit RGBA
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 9))
            + chunk(b"IEND", b""))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    for folder, glyph in [("ReduxSwift Feature.xctemplate", loop),
                          ("ReduxSwift Feature Tests.xctemplate", check)]:
        for name, size in [("TemplateIcon.png", 48), ("TemplateIcon@2x.png", 96)]:
            path = os.path.join(here, folder, name)
            with open(path, "wb") as file:
                file.write(render(size, glyph))
            print("wrote", os.path.relpath(path, os.path.dirname(here)))


if __name__ == "__main__":
    main()
