/**
 * The rule runner: board rules act on committed changes, read from the event feed behind a cursor of
 * their own, exactly once per rule and triggering event (docs/decisions/0141-board-rules-exactly-once.md).
 *
 * A pass does three things, each in transactions of its own:
 *   1. it files runs: under the rule cursor's lock (of several instances one does it), the events
 *      committed since the cursor are matched against the enabled rules of their boards, one
 *      `rule_runs` row is written per rule and event (unique by rule and trigger) and the cursor moves
 *      past them, all in one transaction: a crash before its commit leaves the cursor where it was,
 *      and the events are read again;
 *   2. it files the due-date triggers that fell due (one row per rule, card and due date, unique);
 *   3. it runs the pending runs, each in one transaction that locks the run (skipping one another
 *      instance holds), applies the rule's actions through the services of the change path with the
 *      author's reach as it is now, and marks the run done: the actions and the run's end commit
 *      together, so a run is done once, and a crash mid-run rolls back to a pending run.
 */

import type { RuleTrigger } from '../../schemas/rules.ts';
import type { Executor, NewRow, Transaction } from '../../storage/database.ts';
import type { EventRow } from '../../storage/event-feed.ts';
import { feedEnd, ruleTriggerEventsAfter, ruleTriggerEventsHeldBack } from '../../storage/repositories/events.ts';
import {
  authorReach,
  cardState,
  cardsDueBetween,
  checklistAllDone,
  commentContents,
  countBoardActions,
  enabledDueRules,
  enabledRulesOfBoards,
  fileRuns,
  findRule,
  finishRun,
  lockPendingRun,
  lockRuleFeed,
  moveRuleFeed,
  pendingRunIds,
  pruneBoardHours,
  type RuleRow,
  runDepth,
  updateRule,
} from '../../storage/repositories/rules.ts';
import { requireAccess } from '../access/access.ts';
import type { ServiceContext } from '../context.ts';
import { recordEvent } from '../events/record.ts';
import type { Caller } from '../shared/caller.ts';
import { ConflictError, DomainError, NotFoundError } from '../shared/errors.ts';
import { newOrderedId } from '../shared/ids.ts';
import { PeriodicJob } from '../shared/periodic.ts';
import { inTransaction } from '../shared/transaction.ts';
import { applyActions } from './actions.ts';
import { conditionsHold, dueLeadMs, HOUR_MS, toRule, triggeredBy } from './definition.ts';

/** A rule triggered by a rule triggered by … a person's change: at most this many rules in a row. */
export const MAX_CHAIN_DEPTH = 5;

/** Events read per transaction of the filing; runs run per pass before new events are read again. */
const BATCH = 200;

export interface RuleEngineOptions {
  /** Between two passes when no commit wakes the worker (RULES_POLL_MS). */
  pollMs: number;
  /** Actions a board's rules may take in one clock hour (RULES_ACTIONS_PER_HOUR). */
  actionsPerHour: number;
  log: { error(detail: object, message: string): void; warn(detail: object, message: string): void };
}

/** What one pass did. */
export interface RulePass {
  filed: number;
  /** Triggering events committed that the feed holds back still: the next pass reads them. */
  heldBack: boolean;
  done: number;
  skipped: number;
  failed: number;
}

function pause(trx: Transaction, rule: RuleRow, reason: string, at: string) {
  return updateRule(trx, rule.id, { enabled: 0, paused_reason: reason.slice(0, 500), updated_at: at, version: Number(rule.version) + 1 });
}

/** The event of a rule paused by the runner, for the board's editors (activity, streams, webhooks). */
function recordPause(trx: Transaction, rule: RuleRow, reason: string, at: string): void {
  recordEvent(trx, null, 'rule.paused', { company: rule.company_id, team: rule.team_id, board: rule.board_id }, { rule: rule.id, name: rule.name, reason }, at);
}

/** Whether any matching needs the facts an event alone does not carry. */
async function factsOf(trx: Transaction, events: readonly EventRow[], data: ReadonlyMap<string, Record<string, unknown>>) {
  const commentIds = events.flatMap((e) =>
    e.type === 'comment.created' && typeof data.get(e.id)?.comment === 'string' ? [data.get(e.id)?.comment as string] : [],
  );
  const checklists = [
    ...new Set(
      events.flatMap((e) =>
        e.type === 'checklist.item.completed' && typeof data.get(e.id)?.checklist === 'string' ? [data.get(e.id)?.checklist as string] : [],
      ),
    ),
  ];
  const doneChecklists = new Set<string>();
  for (const id of checklists) if (await checklistAllDone(trx, id)) doneChecklists.add(id);
  return { comments: await commentContents(trx, commentIds), doneChecklists };
}

/**
 * Files the runs of the events committed since the cursor; answers how many it filed, and whether
 * the feed holds events back still (another instance holding the cursor counts as such).
 */
export async function fileTriggeredRuns(ctx: ServiceContext): Promise<{ filed: number; heldBack: boolean }> {
  let filed = 0;
  for (;;) {
    const step = await inTransaction(ctx, async (trx) => {
      const cursor = await lockRuleFeed(trx);
      if (!cursor) return { filed: 0, more: false, heldBack: true };
      if (cursor.position === null) {
        // no rule can be older than the first pass: the past triggers nothing
        await moveRuleFeed(trx, await feedEnd(trx));
        return { filed: 0, more: false, heldBack: false };
      }
      const events = await ruleTriggerEventsAfter(trx, cursor.position, BATCH);
      const last = events.at(-1);
      if (!last) return { filed: 0, more: false, heldBack: await ruleTriggerEventsHeldBack(trx, cursor.position) };
      const data = new Map(events.map((event) => [event.id, JSON.parse(event.data) as Record<string, unknown>]));
      const boardsOf = (event: EventRow) => {
        const from = (data.get(event.id)?.from ?? {}) as { board?: unknown };
        return [event.board_id, typeof from.board === 'string' ? from.board : null].filter((b): b is string => b !== null);
      };
      const rules = await enabledRulesOfBoards(trx, [...new Set(events.flatMap(boardsOf))]);
      const runs: NewRow<'rule_runs'>[] = [];
      if (rules.length) {
        const facts = await factsOf(trx, events, data);
        const depths = await runDepth(trx, [...new Set(events.flatMap((e) => (e.actor_rule_id && e.request_id ? [e.request_id] : [])))]);
        const now = new Date(ctx.clock.now()).toISOString();
        const paused = new Set<string>();
        // each rule's definition is parsed once a batch, not once an event
        const rulesOfBoard = new Map<string, { rule: RuleRow; trigger: RuleTrigger }[]>();
        for (const rule of rules) {
          const ofBoard = rulesOfBoard.get(rule.board_id) ?? [];
          ofBoard.push({ rule, trigger: toRule(rule).trigger });
          rulesOfBoard.set(rule.board_id, ofBoard);
        }
        for (const event of events) {
          const triggering = { type: event.type, card: event.card_id, data: data.get(event.id) ?? {} };
          for (const { rule, trigger } of [...new Set(boardsOf(event))].flatMap((board) => rulesOfBoard.get(board) ?? [])) {
            if (rule.created_at > event.created_at || paused.has(rule.id)) continue;
            // a rule's own actions never trigger it again
            if (event.actor_rule_id === rule.id) continue;
            if (!triggeredBy(trigger, triggering, facts)) continue;
            const depth = event.actor_rule_id ? (depths.get(event.request_id ?? '') ?? MAX_CHAIN_DEPTH) + 1 : 1;
            const run = {
              id: newOrderedId(ctx.clock.now()),
              rule_id: rule.id,
              board_id: rule.board_id,
              trigger_key: event.id,
              event_id: event.id,
              card_id: event.card_id,
              depth,
            };
            if (depth > MAX_CHAIN_DEPTH) {
              const reason = `Paused: a chain of rules deeper than ${MAX_CHAIN_DEPTH} (this rule would have been rule ${depth} in a row)`;
              runs.push({ ...run, status: 'failed', reason, actions_taken: 0, changes: '[]', created_at: now, finished_at: now });
              await pause(trx, rule, reason, now);
              recordPause(trx, rule, reason, now);
              paused.add(rule.id);
              continue;
            }
            runs.push({ ...run, status: 'pending', reason: null, actions_taken: 0, changes: '[]', created_at: now, finished_at: null });
          }
        }
      }
      const count = await fileRuns(trx, runs);
      await moveRuleFeed(trx, last.position);
      const more = events.length === BATCH;
      return { filed: count, more, heldBack: !more && (await ruleTriggerEventsHeldBack(trx, last.position)) };
    });
    filed += step.filed;
    if (!step.more) return { filed, heldBack: step.heldBack };
  }
}

/**
 * Files a run for each open card whose due date came within a due-date rule's lead since the rule
 * was made: once per rule, card and due date (a changed due date fires again). A moment missed
 * while no server ran is filed at the next pass.
 */
export async function fileDueRuns(ctx: ServiceContext): Promise<number> {
  const rules = await enabledDueRules(ctx.db);
  if (!rules.length) return 0;
  const now = ctx.clock.now();
  const nowIso = new Date(now).toISOString();
  let filed = 0;
  for (const rule of rules) {
    const lead = dueLeadMs(toRule(rule).trigger);
    if (lead === undefined) continue;
    const from = new Date(Date.parse(rule.created_at) + lead).toISOString();
    const to = new Date(now + lead + 1).toISOString();
    const cards = await cardsDueBetween(ctx.db, rule.board_id, from, to);
    if (!cards.length) continue;
    filed += await inTransaction(ctx, (trx) =>
      fileRuns(
        trx,
        cards.map((card) => ({
          id: newOrderedId(now),
          rule_id: rule.id,
          board_id: rule.board_id,
          trigger_key: `due:${card.id}:${card.due_date}`,
          event_id: null,
          card_id: card.id,
          depth: 1,
          status: 'pending' as const,
          reason: null,
          actions_taken: 0,
          changes: '[]',
          created_at: nowIso,
          finished_at: null,
        })),
      ),
    );
  }
  return filed;
}

/**
 * A user as a caller now, with the reach their memberships give: what a rule (or a recurring card)
 * acts with on its author's behalf; `rule` marks the changes' events as the rule's.
 */
export async function callerOfAuthor(db: Executor, userId: string, requestId: string, rule?: { id: string; name: string }): Promise<Caller> {
  const reach = await authorReach(db, userId);
  return {
    userId,
    apiKeyId: null,
    companyRoles: new Map(reach.companies.map((c) => [c.company_id, c.role])),
    teamIds: new Set(reach.teams),
    requestId,
    ...(rule ? { rule } : {}),
  };
}

type Outcome = 'done' | 'skipped' | 'failed' | 'taken';

/** The hour a board's action count is kept under. */
function hourOf(now: number): string {
  return new Date(Math.floor(now / HOUR_MS) * HOUR_MS).toISOString();
}

/** Runs one pending run in one transaction, unless another instance holds it or it ended. */
export async function runRule(ctx: ServiceContext, runId: string, options: Pick<RuleEngineOptions, 'actionsPerHour'>): Promise<Outcome> {
  try {
    return await inTransaction(ctx, async (trx): Promise<Outcome> => {
      const run = await lockPendingRun(trx, runId);
      if (!run) return 'taken';
      const at = new Date(ctx.clock.now()).toISOString();
      const end = async (status: 'done' | 'skipped', reason: string | null, changes: unknown[] = []) => {
        await finishRun(trx, run.id, { status, reason, actions_taken: changes.length, changes: JSON.stringify(changes), finished_at: at });
        return status;
      };
      const rule = await findRule(trx, run.rule_id);
      if (!rule) return 'taken';
      if (!Number(rule.enabled)) return end('skipped', rule.paused_reason ? 'the rule is paused' : 'the rule is disabled');
      // the card and the conditions first: a run that would not act skips without reading its
      // author's reach (most runs of a busy board's rules are such), and the reach is read under the
      // same lock before any action
      const card = run.card_id ? await cardState(trx, run.card_id) : undefined;
      if (!card || card.board_id !== rule.board_id) return end('skipped', 'the card is no longer on the board');
      const definition = toRule(rule);
      if (!conditionsHold(definition.conditions, card)) return end('skipped', 'the conditions did not hold');
      const caller = await callerOfAuthor(trx, rule.author_id, run.id, { id: rule.id, name: rule.name });
      try {
        await requireAccess(trx, caller, { kind: 'board', id: rule.board_id });
      } catch (error) {
        if (!(error instanceof NotFoundError)) throw error;
        const reason = "Paused: the rule's author no longer reaches the board";
        await pause(trx, rule, reason, at);
        recordPause(trx, rule, reason, at);
        return end('skipped', reason);
      }
      const hour = hourOf(ctx.clock.now());
      if ((await countBoardActions(trx, rule.board_id, hour, 0)) >= options.actionsPerHour) {
        return end('skipped', `the board's rules took ${options.actionsPerHour} actions this hour (the limit)`);
      }
      const changes = await applyActions(ctx, trx, caller, card.id, definition.actions);
      if (changes.length) await countBoardActions(trx, rule.board_id, hour, changes.length);
      recordEvent(
        trx,
        caller,
        'rule.run',
        { company: rule.company_id, team: rule.team_id, board: rule.board_id, card: card.id },
        { rule: rule.id, name: rule.name, run: run.id, event: run.event_id, actions: changes.length },
        at,
      );
      return end('done', null, changes);
    });
  } catch (error) {
    // a refusal of the change path (a list deleted, a label gone, a move out of reach): the run
    // failed and its rule pauses; anything else (the database) leaves the run pending for a later pass
    // (a conflict with concurrent changes is no refusal: the run is tried again)
    if (!(error instanceof DomainError) || error instanceof ConflictError) throw error;
    const reason = `Paused: an action failed: ${error.message}`;
    return inTransaction(ctx, async (trx): Promise<Outcome> => {
      const run = await lockPendingRun(trx, runId);
      if (!run) return 'taken';
      const at = new Date(ctx.clock.now()).toISOString();
      await finishRun(trx, run.id, { status: 'failed', reason: error.message.slice(0, 500), actions_taken: 0, changes: '[]', finished_at: at });
      const rule = await findRule(trx, run.rule_id);
      if (rule && Number(rule.enabled)) {
        await pause(trx, rule, reason, at);
        recordPause(trx, rule, reason, at);
      }
      return 'failed';
    });
  }
}

/** Runs the pending runs, oldest first, until none is left. */
export async function runPendingRules(
  ctx: ServiceContext,
  options: Pick<RuleEngineOptions, 'actionsPerHour'>,
  stopping?: AbortSignal,
): Promise<Omit<RulePass, 'filed' | 'heldBack'>> {
  const pass = { done: 0, skipped: 0, failed: 0 };
  for (;;) {
    const ids = await pendingRunIds(ctx.db, BATCH);
    let ran = 0;
    for (const id of ids) {
      if (stopping?.aborted) return pass;
      const outcome = await runRule(ctx, id, options);
      if (outcome === 'taken') continue;
      pass[outcome]++;
      ran++;
    }
    // fewer than a page, or all of it taken by another instance: done for this pass
    if (ids.length < BATCH || ran === 0) return pass;
  }
}

/** One pass of the worker: file what triggered, then run what is pending. */
export async function rulePass(ctx: ServiceContext, options: Pick<RuleEngineOptions, 'actionsPerHour'>, stopping?: AbortSignal): Promise<RulePass> {
  const triggered = await fileTriggeredRuns(ctx);
  let { filed, heldBack } = triggered;
  filed += await fileDueRuns(ctx);
  const ran = await runPendingRules(ctx, options, stopping);
  // the rules' own changes may trigger other rules (a chain): file and run those in the same pass
  let more = ran.done;
  let total = { ...ran };
  for (let round = 1; more > 0 && round < MAX_CHAIN_DEPTH + 1 && !stopping?.aborted; round++) {
    const chained = await fileTriggeredRuns(ctx);
    heldBack = chained.heldBack;
    if (!chained.filed) break;
    filed += chained.filed;
    const next = await runPendingRules(ctx, options, stopping);
    total = { done: total.done + next.done, skipped: total.skipped + next.skipped, failed: total.failed + next.failed };
    more = next.done;
  }
  return { ...total, filed, heldBack };
}

/** The rule worker's job: woken by every commit that recorded events, else every `pollMs`. */
export function ruleWorker(ctx: ServiceContext, options: RuleEngineOptions): PeriodicJob<RulePass> {
  let prunedHour = '';
  return new PeriodicJob<RulePass>(
    {
      name: 'rules',
      everyMs: options.pollMs,
      pass: async (stopping) => {
        const pass = await rulePass(ctx, options, stopping);
        // the counts of hours gone no longer limit anything: dropped once an hour
        const hour = hourOf(ctx.clock.now());
        if (hour !== prunedHour) {
          await pruneBoardHours(ctx.db, hour);
          prunedHour = hour;
        }
        return pass;
      },
    },
    options.log,
  );
}
