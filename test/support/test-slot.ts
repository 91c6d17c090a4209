/**
 * A test process's slot: one of 15 numbered places on the tests' own servers, so that test processes running side
 * by side (mocha's parallel workers, two checkouts) never share a database or a Redis database. Slot N is the
 * PostgreSQL database `<template>_s<N>` (a copy of the migrated template database, made fresh when the process
 * starts testing) and Redis database N on the tests' Redis server. A slot is held by a file naming the process; a
 * file whose process is gone is taken over.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAlive } from './processes';

export const SLOT_COUNT = 15; // Redis databases 1..15; 0 stays unused

/** The project's cache (scripts/lib/common.sh), where the installed test binaries and the slots' files are. */
export const cacheDir = process.env.CLIENT_API_CACHE ?? path.join(os.homedir(), '.cache', 'client-public-api');
const slotsDir = process.env.TEST_SLOTS_DIR ?? path.join(cacheDir, 'run', 'test-slots');

function tryTake(file: string): boolean {
  try {
    fs.writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const holder = Number(fs.readFileSync(file, 'utf8') || 0);
  if (holder > 0 && isAlive(holder)) return false;
  // Its holder is gone: one process wins the rename, and then takes the slot like a free one.
  try {
    fs.renameSync(file, `${file}.stale.${process.pid}`);
    fs.rmSync(`${file}.stale.${process.pid}`, { force: true });
  } catch {
    return false;
  }
  return tryTake(file);
}

let claimed: number | undefined;

/** This process's slot number (1..15), claimed on first use and released when the process exits. */
export function testSlot(): number {
  if (claimed !== undefined) return claimed;
  fs.mkdirSync(slotsDir, { recursive: true });
  for (let n = 1; n <= SLOT_COUNT; n++) {
    const file = path.join(slotsDir, `slot-${n}`);
    if (tryTake(file)) {
      claimed = n;
      process.once('exit', () => fs.rmSync(file, { force: true }));
      return n;
    }
  }
  throw new Error(`all ${SLOT_COUNT} test slots in ${slotsDir} are held by running processes`);
}
