/** What tells the time (epoch ms) to the parts that wait or expire things; tests set their own. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };
