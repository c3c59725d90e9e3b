/**
 * The palette colour a source's label colour becomes: the one of the same name, else of the name
 * without its shade (Trello's `green_dark` is a green), else the nearest by RGB distance.
 */

function rgb(hex: string): [number, number, number] {
  const value = Number.parseInt(hex.replace('#', '').slice(0, 6).padEnd(6, '0'), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

export function nearestColour<C extends { id: string; name: string; hex: string }>(palette: readonly C[], colour: { name: string; hex: string }): C {
  const base = colour.name.replace(/_(dark|light)$/, '');
  const named = palette.find((entry) => entry.name === colour.name) ?? palette.find((entry) => entry.name === base);
  if (named) return named;
  const [r, g, b] = rgb(colour.hex);
  let best = palette[0] as C;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const entry of palette) {
    const [r2, g2, b2] = rgb(entry.hex);
    const distance = (r - r2) ** 2 + (g - g2) ** 2 + (b - b2) ** 2;
    if (distance < bestDistance) {
      best = entry;
      bestDistance = distance;
    }
  }
  return best;
}
