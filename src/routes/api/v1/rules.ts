import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import * as rules from '../../../domain/rules/service.ts';
import { NoQuery } from '../../../schemas/common.ts';
import {
  BoardRulesParams,
  DryRunAnswer,
  DryRunBody,
  Rule,
  RuleDefinition,
  RuleParams,
  RuleRunsPage,
  RuleRunsQuery,
  RulesAnswer,
  UpdateRuleBody,
} from '../../../schemas/rules.ts';
import { keyedPage, operations } from '../../operation.ts';

const who = "Anyone who reaches the board (its team's members, the company's owners and admins); a board out of reach is a 404.";

/** Board rules (docs/api.md, "Rules"): the rate-limit tiers apply to these operations, not to what the rules do. */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  const route = operations(app, ['rules']);
  const rule = ['rule', Rule] as const;

  route(
    'POST /boards/:boardId/rules',
    {
      tier: 'medium',
      operationId: 'createRule',
      summary: 'Create Rule',
      description: `A rule of the board: a trigger, conditions that must all hold, and actions, run after each triggering change commits, with the reach of its author (the caller). At most ${rules.MAX_RULES_PER_BOARD} rules per board (409 past it). ${who}`,
      params: BoardRulesParams,
      querystring: NoQuery,
      body: RuleDefinition,
      answer: rule,
      status: 201,
      location: (created) => `/api/v1/rules/${created._id}`,
      errors: [409],
      message: 'Rule created',
    },
    async ({ caller, params, body }) => {
      const created = await rules.createRule(app.services, caller, params.boardId, body);
      return created;
    },
  );

  route(
    'GET /boards/:boardId/rules',
    {
      tier: 'very-low',
      operationId: 'getBoardRules',
      summary: 'Get Board Rules',
      description: `The board's rules, oldest first. ${who}`,
      params: BoardRulesParams,
      querystring: NoQuery,
      answer: RulesAnswer,
      message: 'Rules retrieved',
    },
    async ({ caller, params }) => ({ rules: await rules.listRules(app.services, caller, params.boardId) }),
  );

  route(
    'POST /boards/:boardId/rules/dry-run',
    {
      tier: 'low',
      operationId: 'dryRunRule',
      summary: 'Dry Run Rule',
      description: `What the conditions and actions would change on each open card of the board now, without changing anything. ${who}`,
      params: BoardRulesParams,
      querystring: NoQuery,
      body: DryRunBody,
      answer: DryRunAnswer,
      message: 'Dry run done',
    },
    ({ caller, params, body }) => rules.dryRun(app.services, caller, params.boardId, body),
  );

  route(
    'GET /rules/:ruleId',
    {
      tier: 'very-low',
      operationId: 'getRule',
      summary: 'Get Rule',
      description: who,
      params: RuleParams,
      querystring: NoQuery,
      answer: rule,
      message: 'Rule retrieved',
    },
    ({ caller, params }) => rules.getRule(app.services, caller, params.ruleId),
  );

  route(
    'PATCH /rules/:ruleId',
    {
      tier: 'low',
      operationId: 'updateRule',
      summary: 'Update Rule',
      description: `Changes the rule; the caller becomes its author (whose reach it acts with). \`enabled: true\` also clears \`pausedReason\`. ${who}`,
      params: RuleParams,
      querystring: NoQuery,
      body: UpdateRuleBody,
      answer: rule,
      message: 'Rule updated',
    },
    async ({ caller, params, body }) => {
      const updated = await rules.updateRule(app.services, caller, params.ruleId, body);
      return updated;
    },
  );

  route(
    'DELETE /rules/:ruleId',
    {
      tier: 'low',
      operationId: 'deleteRule',
      summary: 'Delete Rule',
      description: `Deletes the rule and its runs' history. ${who}`,
      params: RuleParams,
      querystring: NoQuery,
      answer: rule,
      message: 'Rule deleted',
    },
    ({ caller, params }) => rules.deleteRule(app.services, caller, params.ruleId),
  );

  route(
    'GET /rules/:ruleId/runs',
    {
      tier: 'very-low',
      operationId: 'getRuleRuns',
      summary: 'Get Rule Runs',
      description: `The rule's runs, newest first: what triggered each, whether it acted, was skipped (and why) or failed, and what it changed. ${who}`,
      params: RuleParams,
      querystring: RuleRunsQuery,
      answer: RuleRunsPage,
      message: 'Rule runs retrieved',
    },
    async ({ caller, params, query }) =>
      keyedPage('runs', await rules.listRuns(app.services, caller, params.ruleId, { limit: query.limit ?? 50, cursor: query.cursor })),
  );
};

export default routes;
