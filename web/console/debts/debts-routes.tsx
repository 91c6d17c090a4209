/**
 * Debts and debtors: the lists (core's list reads, the API's filters as query parameters), a debt's page, a debtor's
 * page, and the recall (its confirmation, then the lifecycle, as `PATCH /v1/debts/{id}` with `status: "Closed"`).
 * Another organisation's debt or debtor is a 404 page: every read takes the session's organisation first.
 */
import type Router from '@koa/router';
import type { Context } from 'koa';
import { DEBT_STATUSES, type DebtStatus } from '../../../core/debts/debt-status';
import { getDebtor, listDebtors } from '../../../core/debts/debtors';
import { maskedVerification } from '../../../core/debts/debtor-verification';
import { getDebt, listDebts, type Debt, type DebtFilters } from '../../../core/debts/debts';
import { listTransactions } from '../../../core/debts/transactions';
import { listDebtRefunds } from '../../../core/payments/refunds';
import { listDebtDocuments } from '../../../core/documents/documents';
import { ApiError, errors } from '../../../core/platform/errors';
import { isUuid } from '../../../core/platform/ids';
import { DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE } from '../../../core/platform/pagination';
import { listDebtEvents, recallConsoleDebt } from '../../../core/staff/console-debts';
import { listCircumstances } from '../../../core/portal/circumstances';
import { canRecallDebts, requireRecall } from '../../../core/staff/roles';
import type { ConsoleContext } from '../shared/console-context';
import { DebtBody, DebtsBody, RecallConfirmBody, type DebtsListProps } from './debts-pages';
import { DebtorBody, DebtorsBody, type DebtorsListProps } from './debtors-pages';
import { actorOf, signedIn } from '../shared/signed-in';
import { simulationPanel, simulationRoutes, type ShowDebt } from '../sandbox/simulation-routes';
import { portalLinkSectionProps } from './portal-link-routes';

const DEBT_QUERY = [
  'status',
  'externalAccountId',
  'clientReference',
  'createdAfter',
  'createdBefore',
  'metadataKey',
  'metadataValue',
  'debtorId',
  'cursor',
] as const;
const DEBTOR_QUERY = ['referenceId', 'email', 'cursor'] as const;

export function debtsRoutes(router: Router, c: ConsoleContext): void {
  const { db, config, debtTriggers } = c.deps;

  router.get('/console/debts', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    const query = queryOf(ctx, DEBT_QUERY);
    const props: DebtsListProps = { debts: [], nextCursor: null, query };
    try {
      const { cursor, ...filters } = debtFilters(query);
      const page = await listDebts(db, session.organizationId, {
        ...filters,
        page: { limit: DEFAULT_PAGE_SIZE, cursor },
      });
      props.debts = JSON.parse(page.dataJson) as Debt[];
      props.nextCursor = page.nextCursor;
    } catch (error) {
      // A filter the API would refuse is said on the list's page, with the form to fix it.
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      return c.page(ctx, 'Debts', <DebtsBody {...props} problem={error.message} />, 400);
    }
    c.page(ctx, 'Debts', <DebtsBody {...props} />);
  });

  /** A debt's page; a simulation refused renders it again with its refusal (sandbox/simulation-routes.tsx). */
  const showDebt: ShowDebt = async (ctx, session, debtId, simulation, status = 200) => {
    const org = session.organizationId;
    const debt = await getDebt(db, org, debtId);
    if (!debt) throw errors.notFound('debt');
    const [debtor, transactions, refunds, documents, events, circumstances, portalLink] = await Promise.all([
      getDebtor(db, org, debt.debtorId),
      listTransactions(db, org, { debtId: debt.id, page: { limit: MAX_PAGE_SIZE } }),
      listDebtRefunds(db, org, debt.id),
      listDebtDocuments(db, org, debt.id, { limit: MAX_PAGE_SIZE }),
      listDebtEvents(db, org, debt.id),
      listCircumstances(db, org, debt.id),
      portalLinkSectionProps(db, session, debt, ctx.query.portalLink),
    ]);
    c.page(
      ctx,
      'Debt',
      <DebtBody
        debt={debt}
        debtor={debtor}
        transactions={transactions.data}
        moreTransactions={transactions.nextCursor !== null}
        refunds={refunds}
        documents={documents?.data ?? []}
        events={events}
        canRecall={canRecallDebts(session.role)}
        recalled={ctx.query.recalled === '1'}
        circumstances={circumstances}
        sandboxActions={simulationPanel(c, ctx, session, debt, simulation)}
        portalLink={portalLink}
      />,
      status,
    );
  };

  router.get('/console/debts/:id', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    await showDebt(ctx, session, ctx.params.id ?? '');
  });
  simulationRoutes(router, c, showDebt);

  router.get('/console/debts/:id/recall', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    requireRecall(session.role);
    const debt = await getDebt(db, session.organizationId, ctx.params.id ?? '');
    if (!debt) throw errors.notFound('debt');
    c.page(ctx, 'Recall a debt', <RecallConfirmBody debt={debt} csrfToken={session.csrfToken} />);
  });

  router.post('/console/debts/:id/recall', async (ctx) => {
    const { session } = await c.sessionForm(ctx);
    const requestId = (ctx.state as { requestId: string }).requestId;
    const debt = await recallConsoleDebt(
      { db, triggers: debtTriggers },
      actorOf(session),
      config.mode,
      ctx.params.id ?? '',
      requestId,
    );
    ctx.status = 303;
    ctx.redirect(`/console/debts/${debt.id}?recalled=1`);
  });

  router.get('/console/debtors', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    const query = queryOf(ctx, DEBTOR_QUERY);
    const props: DebtorsListProps = { debtors: [], nextCursor: null, query };
    try {
      const page = await listDebtors(db, session.organizationId, {
        page: { limit: DEFAULT_PAGE_SIZE, cursor: query.cursor },
        ...(query.referenceId ? { referenceId: query.referenceId } : {}),
        ...(query.email ? { email: query.email } : {}),
      });
      props.debtors = page.data;
      props.nextCursor = page.nextCursor;
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 400) throw error;
      return c.page(ctx, 'Debtors', <DebtorsBody {...props} problem={error.message} />, 400);
    }
    c.page(ctx, 'Debtors', <DebtorsBody {...props} />);
  });

  router.get('/console/debtors/:id', async (ctx) => {
    const session = await signedIn(c, ctx);
    if (!session) return;
    const debtor = await getDebtor(db, session.organizationId, ctx.params.id ?? '');
    if (!debtor) throw errors.notFound('debtor');
    const page = await listDebts(db, session.organizationId, {
      debtorId: debtor.id,
      page: { limit: DEFAULT_PAGE_SIZE },
    });
    const debts = JSON.parse(page.dataJson) as Debt[];
    const verification = await maskedVerification(db, session.organizationId, debtor.id);
    c.page(
      ctx,
      'Debtor',
      <DebtorBody debtor={debtor} verification={verification} debts={debts} more={page.nextCursor !== null} />,
    );
  });
}

/** The query's parameters this page knows, each as one trimmed string; empty ones are left out. */
function queryOf(ctx: Context, names: readonly string[]): Record<string, string> {
  const query: Record<string, string> = {};
  for (const name of names) {
    const value = ctx.query[name];
    const text = (Array.isArray(value) ? value[0] : value)?.trim();
    if (text) query[name] = text;
  }
  return query;
}

/** The API's filter rules: a known status, instants for the dates, one metadata pair, a debtor's id. */
function debtFilters(query: Record<string, string>): DebtFilters & { cursor?: string } {
  const filters: DebtFilters & { cursor?: string } = {};
  if (query.status) {
    if (!(DEBT_STATUSES as readonly string[]).includes(query.status)) {
      throw errors.invalidRequest(`Status must be one of ${DEBT_STATUSES.join(', ')}.`);
    }
    filters.status = query.status as DebtStatus;
  }
  if (query.externalAccountId) filters.externalAccountId = query.externalAccountId;
  if (query.clientReference) filters.clientReference = query.clientReference;
  if (query.createdAfter) filters.createdAfter = instant(query.createdAfter, 'Created after');
  if (query.createdBefore) filters.createdBefore = instant(query.createdBefore, 'Created before');
  if (query.metadataKey || query.metadataValue) {
    if (!query.metadataKey || !query.metadataValue) {
      throw errors.invalidRequest('A metadata filter needs both a key and a value.');
    }
    filters.metadata = { [query.metadataKey]: query.metadataValue };
  }
  if (query.debtorId) {
    if (!isUuid(query.debtorId)) throw errors.invalidRequest('The debtor filter is not a debtor id.');
    filters.debtorId = query.debtorId;
  }
  if (query.cursor) filters.cursor = query.cursor;
  return filters;
}

/** A date (`YYYY-MM-DD`, the start of that day UTC) or an ISO 8601 date-time with its offset. */
function instant(value: string, label: string): Date {
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const dateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/.test(value);
  const time = dateOnly ? new Date(`${value}T00:00:00Z`) : dateTime ? new Date(value) : undefined;
  if (!time || Number.isNaN(time.getTime()) || time.getUTCFullYear() < 1970) {
    throw errors.invalidRequest(`${label} must be a date (YYYY-MM-DD) or a date-time such as 2026-12-01T09:00:00Z.`);
  }
  return time;
}
