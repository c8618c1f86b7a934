"""Draw the app's icons: web/icons/icon.svg and its PNGs (192 and 512 pixels).

Two cards on the felt, a red heart behind a black spade. The shapes are defined once,
here, as SVG paths in a 100×100 box (the same suit shapes as web/cardface.js); the
script writes them as an SVG and rasterises the very same paths to PNG itself (a
flattener for the path commands used, a scanline filler with 4×4 supersampling, and a
PNG writer on `zlib` and `struct`), so neither Pillow nor any image tool is needed:

    python tools/make_icons.py

The PNGs are full-bleed (no transparent corners, everything that matters inside the
middle 60 %), so the manifest may offer them as "maskable" as well.
"""

from __future__ import annotations

import math
import re
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

OUT = Path(__file__).resolve().parents[1] / "web" / "icons"

SPADE = (
    "M50 4C62 24 96 40 96 64C96 80 80 90 66 84C60 82 56 78 54 74C56 84 60 92 68 98L32 98"
    "C40 92 44 84 46 74C44 78 40 82 34 84C20 90 4 80 4 64C4 40 38 24 50 4Z"
)
HEART = (
    "M50 96C40 82 4 62 4 34C4 16 18 6 30 6C40 6 47 12 50 20C53 12 60 6 70 6C82 6 96 16 96 34"
    "C96 62 60 82 50 96Z"
)
FELT = "#12633f"
RIM = "#0b4a2e"
PAPER = "#ffffff"
EDGE = "#b9c2bc"
RED = "#c0281d"
BLACK = "#1b1b1b"

Point = tuple[float, float]


def rounded_rect(x: float, y: float, w: float, h: float, r: float) -> str:
    """A rounded rectangle as a path of lines and cubic corners."""
    k = r * 0.5523  # the control distance of a quarter circle
    return (
        f"M{x + r} {y}L{x + w - r} {y}C{x + w - r + k} {y} {x + w} {y + r - k} {x + w} {y + r}"
        f"L{x + w} {y + h - r}C{x + w} {y + h - r + k} {x + w - r + k} {y + h} {x + w - r} {y + h}"
        f"L{x + r} {y + h}C{x + r - k} {y + h} {x} {y + h - r + k} {x} {y + h - r}"
        f"L{x} {y + r}C{x} {y + r - k} {x + r - k} {y} {x + r} {y}Z"
    )


@dataclass(frozen=True)
class Shape:
    """A path in its own box, placed by `scale`, then `rotate` (degrees) about the
    icon's centre, then moved by (`dx`, `dy`), in a 100×100 icon."""

    d: str
    fill: str
    scale: float = 1.0
    dx: float = 0.0
    dy: float = 0.0
    rotate: float = 0.0

    def transform(self) -> str:
        return f"rotate({self.rotate} 50 50) translate({self.dx} {self.dy}) scale({self.scale})"

    def place(self, p: Point) -> Point:
        x, y = p[0] * self.scale + self.dx, p[1] * self.scale + self.dy
        a = math.radians(self.rotate)
        cx, cy = x - 50, y - 50
        return (50 + cx * math.cos(a) - cy * math.sin(a), 50 + cx * math.sin(a) + cy * math.cos(a))


def card(rotate: float, dx: float, suit: str, colour: str, pip: Point) -> list[Shape]:
    """A card 36×50 centred on the icon, moved by `dx` and turned by `rotate`."""
    x, y = 32 + dx, 25
    return [
        Shape(rounded_rect(x - 0.8, y - 0.8, 37.6, 51.6, 4.6), EDGE, rotate=rotate),
        Shape(rounded_rect(x, y, 36, 50, 4), PAPER, rotate=rotate),
        Shape(suit, colour, scale=0.22, dx=x + pip[0], dy=y + pip[1], rotate=rotate),
    ]


SHAPES: list[Shape] = [
    Shape("M0 0L100 0L100 100L0 100Z", RIM),
    Shape(rounded_rect(4, 4, 92, 92, 20), FELT),
    *card(-14, -10, HEART, RED, (3, 5)),
    *card(9, 8, SPADE, BLACK, (7, 14)),
]


def flatten(d: str) -> list[list[Point]]:
    """The path's subpaths as polygons (commands M, L, C, Z, absolute, as used here)."""
    tokens = re.findall(r"[MLCZ]|-?\d*\.?\d+(?:e-?\d+)?", d)
    polygons: list[list[Point]] = []
    current: list[Point] = []
    i = 0
    command = ""
    while i < len(tokens):
        if tokens[i] in "MLCZ":
            command = tokens[i]
            i += 1
            if command == "Z":
                polygons.append(current)
                current = []
                continue
        count = 6 if command == "C" else 2
        nums = [float(tok) for tok in tokens[i : i + count]]
        i += count
        if command == "M":
            current = [(nums[0], nums[1])]
        elif command == "L":
            current.append((nums[0], nums[1]))
        else:
            (x0, y0), (x1, y1, x2, y2, x3, y3) = current[-1], nums
            for step in range(1, 17):
                t = step / 16
                u = 1 - t
                current.append(
                    (
                        u**3 * x0 + 3 * u * u * t * x1 + 3 * u * t * t * x2 + t**3 * x3,
                        u**3 * y0 + 3 * u * u * t * y1 + 3 * u * t * t * y2 + t**3 * y3,
                    )
                )
    if current:
        polygons.append(current)
    return polygons


def coverage(polygons: list[list[Point]], size: int) -> list[list[float]]:
    """How much of each pixel the polygons cover (even-odd), 0..1, 4×4 samples a pixel."""
    sub = 4
    edges = [(poly[k], poly[(k + 1) % len(poly)]) for poly in polygons for k in range(len(poly))]
    rows = [[0.0] * size for _ in range(size)]
    for row in range(size):
        line = rows[row]
        for s in range(sub):
            y = row + (s + 0.5) / sub
            xs = sorted(
                x0 + (y - y0) * (x1 - x0) / (y1 - y0)
                for (x0, y0), (x1, y1) in edges
                if (y0 <= y < y1) or (y1 <= y < y0)
            )
            for left, right in zip(xs[0::2], xs[1::2], strict=False):
                for col in range(max(0, int(left)), min(size, int(right) + 1)):
                    if left <= col and col + 1 <= right:
                        line[col] += 1 / sub
                        continue
                    # An edge pixel: the share of its 4 samples inside the span.
                    inside = sum(1 for q in range(sub) if left <= col + (q + 0.5) / sub < right)
                    line[col] += inside / (sub * sub)
    return rows


def rgb(colour: str) -> tuple[int, int, int]:
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def raster(size: int) -> bytes:
    """The icon as RGB pixels, every shape painted over the ones before it."""
    pixels = [[(0.0, 0.0, 0.0)] * size for _ in range(size)]
    factor = size / 100
    for shape in SHAPES:
        polygons = [
            [(x * factor, y * factor) for x, y in map(shape.place, poly)]
            for poly in flatten(shape.d)
        ]
        colour = rgb(shape.fill)
        for y, line in enumerate(coverage(polygons, size)):
            out = pixels[y]
            for x, alpha in enumerate(line):
                if alpha > 0:
                    a = min(1.0, alpha)
                    r, g, b = out[x]
                    out[x] = (
                        r + (colour[0] - r) * a,
                        g + (colour[1] - g) * a,
                        b + (colour[2] - b) * a,
                    )
    return b"".join(b"\x00" + bytes(round(c) for px in line for c in px) for line in pixels)


def png(size: int) -> bytes:
    """A PNG file: 8-bit RGB, one IDAT, no filter."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(raster(size), 9))
        + chunk(b"IEND", b"")
    )


def svg() -> str:
    paths = "\n".join(
        f'  <path fill="{s.fill}" transform="{s.transform()}" d="{s.d}"/>' for s in SHAPES
    )
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 100 100" width="512" height="512">\n'
        f"{paths}\n</svg>\n"
    )


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "icon.svg").write_text(svg(), encoding="utf-8")
    for size in (192, 512):
        (OUT / f"icon-{size}.png").write_bytes(png(size))
    for path in sorted(OUT.iterdir()):
        print(f"{path.relative_to(OUT.parents[1])}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
