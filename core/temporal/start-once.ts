/**
 * Starting a workflow whose id names one piece of work (`webhook-delivery-<id>`, `debt-<id>`, …): a run already
 * started under that id counts as started — that is what the id is for, and it is how a start retried after a crash or
 * a lost answer stays one run. Starts made from a loop pass a deadline: a server that does not answer within it is an
 * error the caller leaves for its next try, instead of holding the loop.
 */
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowStartOptions } from '@temporalio/client';

/** Starts the workflow unless its id is taken; true when this call started it, false when it already existed. */
export async function startOnce(
  client: Client,
  workflowType: string,
  options: WorkflowStartOptions,
  deadlineMs?: number,
): Promise<boolean> {
  const start = () => client.workflow.start(workflowType, options);
  try {
    await (deadlineMs === undefined ? start() : client.withDeadline(Date.now() + deadlineMs, start));
    return true;
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return false;
    throw err;
  }
}
