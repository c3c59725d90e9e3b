/**
 * Serializes one Get Card Details answer with fast-json-stringify two ways, alternating in one
 * process: the route's schema as the app compiles it (the Card and its parts by `$ref` to the named
 * schemas) and the same schema with every `$ref` replaced by its target (how it was before the
 * records were named). Prints operations per second of each and their ratio.
 *
 *   bash scripts/with-node.sh node --import tsx bench/serialize-card.ts
 */
import fastJson from 'fast-json-stringify';
import type { TSchema } from 'typebox';
import { success } from '../src/schemas/common.ts';
import { namedSchemaContext } from '../src/schemas/named.ts';
import { Card } from '../src/schemas/records.ts';

const components = namedSchemaContext();
const answer = success('card', Card);

function inline(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(inline);
  if (!schema || typeof schema !== 'object') return schema;
  const { $ref, $id: _id, ...rest } = schema as Record<string, unknown>;
  if (typeof $ref === 'string') return inline(components[$ref]);
  return Object.fromEntries(Object.entries(rest).map(([key, value]) => [key, inline(value)]));
}

const id = (n: number) => n.toString(16).padStart(24, '0');
const at = '2026-11-23T10:00:00.000Z';
const member = (n: number) => ({ _id: id(n), fullName: `Member ${n}`, photoUrl: '' });
const stamps = { createdAt: at, updatedAt: at, __v: 3 };
const cheer = (n: number) => ({
  _id: id(900 + n),
  content: '🎉',
  creator: { _id: id(n), photoUrl: '' },
  receiver: id(2),
  primaryParent: { id: id(1), type: 'card' },
  secondaryParent: { id: id(1), type: 'card' },
  isNotified: false,
  comment: '',
  card: id(1),
  featureType: 'card',
  company: id(5),
  team: id(6),
  notification: '',
  ...stamps,
});
const label = (n: number) => ({
  _id: id(100 + n),
  name: `label ${n}`,
  creator: id(2),
  color: { _id: id(200 + n), name: 'red', hex: '#ff0000' },
  company: id(5),
  team: id(6),
  board: id(7),
  ...stamps,
});
const attachment = (n: number) => ({
  _id: id(300 + n),
  name: `file ${n}.pdf`,
  url: `/api/v1/attachments/${id(300 + n)}`,
  creator: member(2),
  type: 'file',
  mimeType: 'application/pdf',
  size: 12345,
  originalName: `file ${n}.pdf`,
  isDeleted: false,
  company: id(5),
  team: id(6),
  card: id(1),
  checklistItem: null,
  seen: [id(2)],
  cheers: [cheer(n)],
  ...stamps,
});
const card = {
  _id: id(1),
  name: 'Write the launch post',
  description: 'x'.repeat(400),
  cover: '',
  creator: id(2),
  position: 65536,
  startDate: null,
  dueDate: at,
  members: [member(2), member(3), member(4)],
  checklists: [id(400), id(401)],
  allChecklistItemsCount: { completed: 2, total: 5 },
  cheers: [cheer(1), cheer(2)],
  comments: [id(500), id(501), id(502)],
  labels: [label(1), label(2), label(3)],
  attachments: [attachment(1), attachment(2)],
  complete: { status: false, type: '', setAt: at, updatedAt: at },
  isNotified: { startOneHour: false, startOneDay: false, dueOneHour: false, dueOneDay: false },
  archived: { status: false },
  isPublic: false,
  workload: { value: null, measurement: 'hours' },
  company: id(5),
  team: id(6),
  board: id(7),
  list: id(8),
  seen: [id(2)],
  ...stamps,
};
const body = { message: 'Card details', card };

const named = fastJson(answer as never, { schema: components as Record<string, TSchema> as never });
const inlined = fastJson(inline(answer) as never);
if (named(body) !== inlined(body)) throw new Error('the two serializers disagree');

function opsPerSecond(serialize: (value: unknown) => string, ms: number): number {
  let n = 0;
  const end = performance.now() + ms;
  while (performance.now() < end) for (let i = 0; i < 200; i++, n++) serialize(body);
  return (n * 1000) / ms;
}
opsPerSecond(named, 500);
opsPerSecond(inlined, 500);
const rounds = Number(process.env.ROUNDS ?? 6);
let a = 0;
let b = 0;
for (let round = 0; round < rounds; round++) {
  a += opsPerSecond(named, 1000);
  b += opsPerSecond(inlined, 1000);
}
console.log(`Card Details answer (${named(body).length} bytes), ${rounds} alternating 1 s rounds`);
console.log(`named ($ref): ${Math.round(a / rounds)} ops/s; inlined: ${Math.round(b / rounds)} ops/s; named/inlined ${(a / b).toFixed(3)}`);
