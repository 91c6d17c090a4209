/** A placement's status in the console's words. */
import type { Placement } from '../../../core/placements/placements';

export const STATUS_WORDS: Record<Placement['status'], string> = {
  Validating: 'Checking the rows',
  Importing: 'Importing',
  Completed: 'Completed',
  CompletedWithErrors: 'Completed with errors',
  Failed: 'Failed',
  Cancelled: 'Cancelled',
};
