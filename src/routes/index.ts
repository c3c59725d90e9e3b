import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import account from './api/v1/account.ts';
import activity from './api/v1/activity.ts';
import attachments from './api/v1/attachments.ts';
import audit from './api/v1/audit.ts';
import auth from './api/v1/auth.ts';
import boardEvents from './api/v1/board-events.ts';
import boardTemplates from './api/v1/board-templates.ts';
import boards from './api/v1/boards.ts';
import calendarFeeds from './api/v1/calendar-feeds.ts';
import cardCopies from './api/v1/card-copies.ts';
import cardEdits from './api/v1/card-edits.ts';
import cardFaces from './api/v1/card-faces.ts';
import cards from './api/v1/cards.ts';
import checklistItems from './api/v1/checklist-items.ts';
import checklists from './api/v1/checklists.ts';
import cheers from './api/v1/cheers.ts';
import comments from './api/v1/comments.ts';
import companies from './api/v1/companies.ts';
import customFields from './api/v1/custom-fields.ts';
import imports from './api/v1/imports.ts';
import invitations from './api/v1/invitations.ts';
import labels from './api/v1/labels.ts';
import lists from './api/v1/lists.ts';
import myTasks from './api/v1/my-tasks.ts';
import notifications from './api/v1/notifications.ts';
import oidc from './api/v1/oidc.ts';
import recurrences from './api/v1/recurrences.ts';
import relations from './api/v1/relations.ts';
import rules from './api/v1/rules.ts';
import search from './api/v1/search.ts';
import teams from './api/v1/teams.ts';
import webhooks from './api/v1/webhooks.ts';
import calendar from './calendar.ts';
import health from './health.ts';
import cardsV2 from './v2/cards.ts';

/** Every route, by URL prefix; folders mirror the prefixes. */
const routes: FastifyPluginAsyncTypebox = async (app) => {
  await app.register(health);
  await app.register(calendar);
  await app.register(
    async (v1) => {
      for (const area of [
        account,
        auth,
        oidc,
        invitations,
        companies,
        teams,
        myTasks,
        calendarFeeds,
        boards,
        imports,
        lists,
        labels,
        customFields,
        relations,
        cards,
        cardEdits,
        cardCopies,
        cardFaces,
        attachments,
        checklists,
        checklistItems,
        comments,
        cheers,
        webhooks,
        rules,
        recurrences,
        boardTemplates,
        audit,
        notifications,
        activity,
        boardEvents,
        search,
      ])
        await v1.register(area);
    },
    { prefix: '/api/v1' },
  );
  await app.register(cardsV2, { prefix: '/v2' });
};

export default routes;
