"""Write the table's sounds, web/sounds/*.wav, from nothing but arithmetic.

The sounds are the project's own: no recording, no sample library, so no licence to
carry, and the files are made again the same, byte for byte, by running

    python tools/make_sounds.py

Each is short (under half a second), mono, 22 050 Hz, 16-bit PCM WAV, which every
browser plays. The standard library alone (`wave`, `math`, `random` with a fixed seed)
writes them; numpy is not needed.
"""

from __future__ import annotations

import math
import random
import struct
import wave
from collections.abc import Callable
from pathlib import Path

RATE = 22_050
OUT = Path(__file__).resolve().parents[1] / "web" / "sounds"

Voice = Callable[[float], float]


def tone(freq: float, start: float, length: float, attack: float = 0.005) -> Voice:
    """A bell-like partial: a sine with its octave, a quick attack, an exponential decay."""

    def voice(t: float) -> float:
        local = t - start
        if local < 0 or local > length:
            return 0.0
        envelope = min(1.0, local / attack) * math.exp(-5.0 * local / length)
        phase = 2 * math.pi * freq * local
        return envelope * (math.sin(phase) + 0.25 * math.sin(2 * phase))

    return voice


def tap(length: float, seed: int) -> Voice:
    """A card laid on cloth: a burst of filtered noise with a low thump under it."""
    rng = random.Random(seed)
    noise = [rng.uniform(-1, 1) for _ in range(int(length * RATE) + 1)]
    smooth: list[float] = []
    level = 0.0
    for sample in noise:  # a one-pole low-pass softens the hiss
        level += 0.35 * (sample - level)
        smooth.append(level)

    def voice(t: float) -> float:
        i = int(t * RATE)
        if i >= len(smooth):
            return 0.0
        envelope = math.exp(-t / (length / 6))
        thump = math.sin(2 * math.pi * 140 * t) * math.exp(-t / (length / 4))
        return envelope * smooth[i] * 1.6 + 0.5 * thump

    return voice


def mix(*voices: Voice) -> Voice:
    return lambda t: sum(v(t) for v in voices)


SOUNDS: dict[str, tuple[float, Voice]] = {
    # Your turn: two notes rising, a gentle "ding-dong".
    "turn": (0.42, mix(tone(659.25, 0.0, 0.22), tone(987.77, 0.12, 0.3))),
    # A card played: a soft tap.
    "card": (0.09, tap(0.09, seed=7)),
    # A trick won: three quick notes rising (C E G).
    "trick": (
        0.36,
        mix(tone(523.25, 0.0, 0.16), tone(659.25, 0.07, 0.16), tone(783.99, 0.14, 0.22)),
    ),
    # A second of the last few of your turn: a short, high wooden tick.
    "tick": (0.07, mix(tone(1760.0, 0.0, 0.06, attack=0.001), tap(0.05, seed=11))),
    # The hand is over: a short chord that stays a moment (C major with its octave).
    "hand": (
        0.6,
        mix(
            tone(523.25, 0.0, 0.6),
            tone(659.25, 0.02, 0.58),
            tone(783.99, 0.04, 0.56),
            tone(1046.5, 0.06, 0.5),
        ),
    ),
}


def render(length: float, voice: Voice) -> bytes:
    """The samples of `voice` over `length` seconds, normalised, as 16-bit PCM."""
    samples = [voice(i / RATE) for i in range(int(length * RATE))]
    peak = max(abs(s) for s in samples) or 1.0
    fade = int(0.004 * RATE)  # no click at the end
    for i in range(1, fade + 1):
        samples[-i] *= i / fade
    return b"".join(struct.pack("<h", round(s / peak * 0.6 * 32767)) for s in samples)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name, (length, voice) in SOUNDS.items():
        path = OUT / f"{name}.wav"
        with wave.open(str(path), "wb") as out:
            out.setnchannels(1)
            out.setsampwidth(2)
            out.setframerate(RATE)
            out.writeframes(render(length, voice))
        print(f"{path.relative_to(OUT.parents[1])}: {path.stat().st_size} bytes")


if __name__ == "__main__":
    main()
