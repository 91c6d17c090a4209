/**
 * One pass of the retention purge, started by its Temporal Schedule (core/retention/schedule.ts): a single activity,
 * whose time budget (8 minutes) fits its timeout. The next scheduled pass is the retry, so a failed pass is not
 * retried for long.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { RetentionPurgeActivities } from '../activities/retention-purge';

const { purgeExpiredRows } = proxyActivities<RetentionPurgeActivities>({
  startToCloseTimeout: '10 minutes',
  heartbeatTimeout: '1 minute',
  retry: { maximumAttempts: 3, initialInterval: '5 seconds' },
});

export async function retentionPurgeWorkflow(): ReturnType<RetentionPurgeActivities['purgeExpiredRows']> {
  return purgeExpiredRows();
}
