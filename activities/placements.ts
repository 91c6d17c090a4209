/**
 * The activities of a placement's workflow (workflows/placement.ts): the work itself is core/placements'. Each is
 * safe to retry: validation records nothing twice, a chunk commits whole or not at all and resumes at the last
 * committed one. A placement whose row is gone once its run has begun (a sandbox reset wiped it) is a non-retryable
 * `PlacementGone` failure, which ends the workflow instead of retrying for ever. The pace is the organisation's
 * (core/placements/placement-pace.ts), shared by its running imports. The starts of the debts it raises are owed
 * rows, made by the workers' fair starters in turns with every other organisation's (core/temporal/fair-starter.ts),
 * so an import running ahead of them holds nobody else back.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { DocumentStore } from '../core/documents/store';
import type { Db } from '../core/platform/db';
import { importChunk, type ChunkResult } from '../core/placements/chunk-import';
import { finish, type ValidationResult } from '../core/placements/placement-end';
import { chunkPauseMs, organizationPace } from '../core/placements/placement-pace';
import { validatePlacement } from '../core/placements/placement-validation';
import {
  PlacementMissingError,
  placementStatus,
  type PlacementRef,
  type RowChecker,
} from '../core/placements/placement-work';
import type { PlacementStatus } from '../core/placements/placements';
import { PLACEMENT_GONE_FAILURE } from '../core/temporal/names';

export type { PlacementRef, PlacementStatus, ValidationResult };

export interface PacedChunk extends ChunkResult {
  /** How long the workflow waits before the next chunk, so the organisation's rate holds. */
  pauseMs: number;
}

export interface PlacementActivities {
  /** The placement's status; fails (retryably) while its row is not committed yet. */
  placementStatus(ref: PlacementRef): Promise<PlacementStatus>;
  validatePlacement(ref: PlacementRef): Promise<ValidationResult>;
  importPlacementChunk(ref: PlacementRef): Promise<PacedChunk>;
  finishPlacement(ref: PlacementRef): Promise<ValidationResult>;
}

/** Rows a chunk imports in one transaction. */
export const DEFAULT_CHUNK_ROWS = 500;

export interface PlacementActivityDeps {
  db: Db;
  store: DocumentStore;
  checkRow: RowChecker;
  chunkRows?: number;
  defaultRowsPerSecond?: number;
}

/** A step after the first: its placement's row gone means it was deleted, never that it is still to come. */
async function placementStep<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof PlacementMissingError)
      throw ApplicationFailure.nonRetryable(err.message, PLACEMENT_GONE_FAILURE);
    throw err;
  }
}

export function createPlacementActivities(deps: PlacementActivityDeps): PlacementActivities {
  const work = () => ({ ...deps, heartbeat: () => Context.current().heartbeat() });
  return {
    async placementStatus(ref) {
      try {
        return await placementStatus(deps.db, ref);
      } catch (err) {
        if (err instanceof PlacementMissingError) throw ApplicationFailure.retryable(err.message, 'PlacementMissing');
        throw err;
      }
    },
    validatePlacement: (ref) => placementStep(() => validatePlacement(work(), ref)),
    importPlacementChunk: (ref) =>
      placementStep(async () => {
        const started = Date.now();
        const chunkRows = deps.chunkRows ?? DEFAULT_CHUNK_ROWS;
        const chunk = await importChunk(work(), ref, chunkRows);
        const pace = await organizationPace(deps.db, ref.organizationId, deps.defaultRowsPerSecond);
        return { ...chunk, pauseMs: chunkPauseMs(chunk.rows, pace, Date.now() - started) };
      }),
    finishPlacement: (ref) => placementStep(() => finish(deps.db, ref)),
  };
}
