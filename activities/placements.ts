/**
 * The activities of a placement's workflow (workflows/placement.ts): the work itself is core/placements'. Each is
 * safe to retry: validation records nothing twice, a chunk commits whole or not at all and resumes at the last
 * committed one. The pace of an organisation's imports is its `placement_rows_per_second`, else the default: after
 * a chunk the workflow waits out what remains of that chunk's share of time.
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import type { DocumentStore } from '../core/documents/store';
import type { Db } from '../core/platform/db';
import {
  finish,
  importChunk,
  PlacementMissingError,
  placementStatus,
  validatePlacement,
  type ChunkResult,
  type PlacementRef,
  type RowChecker,
  type ValidationResult,
} from '../core/placements/placement-import';
import type { PlacementStatus } from '../core/placements/placements';

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
/** An organisation's pace when it has none of its own (docs/placements.md "Fair to everyone"). */
export const DEFAULT_ROWS_PER_SECOND = 500;

export interface PlacementActivityDeps {
  db: Db;
  store: DocumentStore;
  checkRow: RowChecker;
  chunkRows?: number;
  defaultRowsPerSecond?: number;
}

async function rowsPerSecond(deps: PlacementActivityDeps, organizationId: string): Promise<number> {
  const org = await deps
    .db('organizations')
    .where({ id: organizationId })
    .first<{ placement_rows_per_second: number | null } | undefined>('placement_rows_per_second');
  return org?.placement_rows_per_second ?? deps.defaultRowsPerSecond ?? DEFAULT_ROWS_PER_SECOND;
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
    validatePlacement: (ref) => validatePlacement(work(), ref),
    async importPlacementChunk(ref) {
      const started = Date.now();
      const chunk = await importChunk(work(), ref, deps.chunkRows ?? DEFAULT_CHUNK_ROWS);
      const shareMs = (chunk.rows * 1000) / (await rowsPerSecond(deps, ref.organizationId));
      return { ...chunk, pauseMs: Math.max(0, Math.round(shareMs - (Date.now() - started))) };
    },
    finishPlacement: (ref) => finish(deps.db, ref),
  };
}
