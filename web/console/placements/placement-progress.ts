/**
 * A placement's progress as the Placements page shows it, the same for the page and its JSON (polled by
 * placement-progress-script.ts): rows done of the file's rows, the rate since the upload (rows done / elapsed) and the
 * time left at that rate. Validation's refusals count as done: they are rows the import will not touch again.
 */
import { isFinished, type Placement } from '../../../core/placements/placements';

export interface PlacementProgress {
  status: Placement['status'];
  finished: boolean;
  /** Rows in the file; 0 while validation is still counting them. */
  total: number;
  done: number;
  imported: number;
  skipped: number;
  failed: number;
  /** Whole percent done; null while the total is unknown. */
  percent: number | null;
  /** E.g. "120 rows a second"; null until a row is done. */
  rate: string | null;
  /** E.g. "about 2 minutes left"; null when unknown or finished. */
  timeLeft: string | null;
  /** The counts in words, e.g. "1,200 of 5,000 rows". */
  summary: string;
}

const numbers = new Intl.NumberFormat('en-AU');

export function rowsText(n: number): string {
  return `${numbers.format(n)} ${n === 1 ? 'row' : 'rows'}`;
}

function durationText(seconds: number): string {
  if (seconds < 60) return `${Math.max(1, Math.round(seconds))} s`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  const hours = Math.floor(minutes / 60);
  return `${hours} h ${minutes % 60} min`;
}

export function placementProgress(p: Placement, now: Date): PlacementProgress {
  const done = p.imported + p.skipped + p.failed;
  const finished = isFinished(p.status);
  const total = p.rows;
  const elapsedSeconds = Math.max(0.001, (now.getTime() - Date.parse(p.createdAt)) / 1000);
  const perSecond = done / elapsedSeconds;
  const known = total > 0;
  return {
    status: p.status,
    finished,
    total,
    done,
    imported: p.imported,
    skipped: p.skipped,
    failed: p.failed,
    percent: known ? Math.min(100, Math.floor((done / total) * 100)) : null,
    rate: !finished && done > 0 ? `${numbers.format(Math.round(perSecond * 10) / 10)} rows a second` : null,
    timeLeft:
      !finished && known && done > 0 && done < total ? `about ${durationText((total - done) / perSecond)} left` : null,
    summary: known ? `${numbers.format(done)} of ${rowsText(total)}` : 'Counting the rows…',
  };
}
