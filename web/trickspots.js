// Where the trick's cards lie on the table: each in front of its player, clear of the
// other cards and of every seat (table.js placeTrick measures the seats and applies
// the spots). Pure geometry, in pixels of the table's box; no page is read here.

const GAP = 4; // pixels kept free between a trick's card and another card or a seat
const ROUNDS = 60; // passes that push overlapping cards apart, at most
const STEP = 4; // pixels between the places tried when pushing apart is not enough

/**
 * Each seat's spot for a card `cardW` wide (in % of a table `width` × `height`), by the
 * seat's number, and how many overlaps were left (0 but on a table too crowded).
 */
export function trickSpots(width, height, seats, cardW) {
  const cardH = (cardW * 84) / 60;
  const cx = width / 2;
  const cy = height / 2;
  // How far a card centred at (x, y) reaches into a box widened by the gap, across and
  // down; it is clear of the box when either is 0.
  const into = (x, y, b) => [
    Math.max(0, Math.min(x + cardW / 2 + GAP - b.left, b.right + GAP - (x - cardW / 2))),
    Math.max(0, Math.min(y + cardH / 2 + GAP - b.top, b.bottom + GAP - (y - cardH / 2))),
  ];
  const clear = (x, y, b) => into(x, y, b).some((d) => d === 0);
  // In front of each player: as far along the line to the seat as its chip allows.
  const spots = seats.map((b) => {
    const tx = (b.left + b.right) / 2 - cx;
    const ty = (b.top + b.bottom) / 2 - cy;
    let lo = 0;
    let hi = 1;
    for (let i = 0; i < 14; i += 1) {
      const mid = (lo + hi) / 2;
      if (clear(cx + mid * tx, cy + mid * ty, b)) lo = mid;
      else hi = mid;
    }
    return { x: cx + lo * tx, y: cy + lo * ty };
  });
  const ideal = spots.map((p) => ({ ...p }));
  // Apart: cards that overlap move away from each other, half each, the shorter way;
  // a card over a seat moves off it the shorter way; every card stays on the table.
  const lowX = cardW / 2 + 2;
  const lowY = cardH / 2 + 2;
  const free = (x, y) =>
    x >= lowX && x <= width - lowX && y >= lowY && y <= height - lowY && seats.every((b) => clear(x, y, b));
  for (let round = 0; round < ROUNDS; round += 1) {
    let moved = false;
    for (let i = 0; i < spots.length; i += 1) {
      for (let j = i + 1; j < spots.length; j += 1) {
        const a = spots[i];
        const b = spots[j];
        const dx = b.x - a.x;
        const dy = b.y - a.y;
        const px = cardW + GAP - Math.abs(dx);
        const py = cardH + GAP - Math.abs(dy);
        if (px <= 0.01 || py <= 0.01) continue;
        moved = true;
        // The shorter way, unless it takes a card onto a seat or off the table and the
        // other way does not (a low table: the top and the bottom cards go aside).
        const across = (dx < 0 ? -1 : 1) * (px / 2);
        const down = (dy < 0 ? -1 : 1) * (py / 2);
        const acrossFree = free(a.x - across, a.y) && free(b.x + across, b.y);
        const downFree = free(a.x, a.y - down) && free(b.x, b.y + down);
        if ((px <= py && (acrossFree || !downFree)) || (acrossFree && !downFree)) {
          a.x -= across;
          b.x += across;
        } else {
          a.y -= down;
          b.y += down;
        }
      }
    }
    for (const spot of spots) {
      for (const b of seats) {
        const [ix, iy] = into(spot.x, spot.y, b);
        if (ix <= 0.01 || iy <= 0.01) continue;
        moved = true;
        if (ix <= iy) spot.x += spot.x < (b.left + b.right) / 2 ? -ix : ix;
        else spot.y += spot.y < (b.top + b.bottom) / 2 ? -iy : iy;
      }
      spot.x = Math.min(Math.max(spot.x, lowX), width - lowX);
      spot.y = Math.min(Math.max(spot.y, lowY), height - lowY);
    }
    if (!moved) break;
  }
  const clashesOf = (laid) => {
    let clashes = 0;
    laid.forEach((a, i) => {
      for (const b of laid.slice(i + 1)) {
        if (Math.abs(a.x - b.x) < cardW + GAP - 0.5 && Math.abs(a.y - b.y) < cardH + GAP - 0.5) clashes += 1;
      }
      for (const b of seats) if (into(a.x, a.y, b).every((d) => d > 0.5)) clashes += 1;
    });
    return clashes;
  };
  let laid = spots;
  let clashes = clashesOf(spots);
  if (clashes) {
    // Pushing apart can leave cards in a corner between seats where a free place was
    // not far (a phone's six seats, the player's own name on four lines): then each card
    // takes the free place nearest its player's spot, one seat after another.
    const placed = nearestFree(ideal, width, height, cardW, cardH, free);
    const other = clashesOf(placed);
    if (other < clashes) [laid, clashes] = [placed, other];
  }
  const found = new Map();
  seats.forEach((b, i) => {
    found.set(b.seat, { x: (100 * laid[i].x) / width, y: (100 * laid[i].y) / height });
  });
  return { spots: found, clashes };
}

/**
 * For each spot of `ideal` in turn, the free place (`free(x, y)`: on the `width` ×
 * `height` table, clear of every seat) nearest it that no card placed before covers, on
 * a grid of `STEP` pixels; where none is left, the spot itself.
 */
function nearestFree(ideal, width, height, cardW, cardH, free) {
  const places = [];
  for (let x = 0; x <= width; x += STEP) for (let y = 0; y <= height; y += STEP) if (free(x, y)) places.push({ x, y });
  const done = [];
  for (const want of ideal) {
    let best = null;
    let bestD = Infinity;
    for (const p of places) {
      const d = (p.x - want.x) ** 2 + (p.y - want.y) ** 2;
      if (d >= bestD) continue;
      if (done.some((q) => Math.abs(p.x - q.x) < cardW + GAP && Math.abs(p.y - q.y) < cardH + GAP)) continue;
      best = p;
      bestD = d;
    }
    done.push(best || { ...want });
  }
  return done;
}
