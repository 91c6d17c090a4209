/**
 * The downloadable files of docs/placements.md: the template (the header row of every column, the debt's fields in
 * order and one metadata column), and an example of four rows. Built from the column list, so they never drift from
 * what an upload accepts.
 */
import { DEBT_COLUMNS, METADATA_PREFIX } from './placement-columns';

const TEMPLATE_COLUMNS = [...DEBT_COLUMNS, `${METADATA_PREFIX}crmId`];

const EXAMPLE_ROWS: Record<string, string>[] = [
  {
    externalAccountId: 'ACCT-1001',
    originalPrincipal: '1250.50',
    currency: 'AUD',
    clientReference: 'INV-2026-0042',
    debtorReferenceId: 'DBR-001',
    debtorFirstName: 'Ava',
    debtorLastName: 'Harris',
    debtorEmail: 'ava.harris@example.com',
    debtorPostcode: '2000',
    'metadata.crmId': 'C-88213',
  },
  {
    externalAccountId: 'ACCT-1002',
    originalPrincipal: '89.95',
    debtorReferenceId: 'DBR-002',
    debtorFirstName: 'Noah',
    debtorLastName: 'O’Brien, Jr',
    debtorPhone: '+61412345678',
    debtorDateOfBirth: '1984-03-09',
  },
  { externalAccountId: 'ACCT-1003', originalPrincipal: '420', debtorReferenceId: 'DBR-001' },
  {
    externalAccountId: 'ACCT-1004',
    originalPrincipal: '15000',
    currency: 'JPY',
    debtorId: '01936f1e-7b10-7aa2-8c11-5d2e9f0a1b23',
    'metadata.crmId': 'C-90001',
  },
];

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function csvLine(values: string[]): string {
  return `${values.map(csvCell).join(',')}\r\n`;
}

export const PLACEMENT_FILES = {
  'template.csv': csvLine(TEMPLATE_COLUMNS),
  'example.csv':
    csvLine(TEMPLATE_COLUMNS) + EXAMPLE_ROWS.map((row) => csvLine(TEMPLATE_COLUMNS.map((c) => row[c] ?? ''))).join(''),
} as const;

export type PlacementFileName = keyof typeof PLACEMENT_FILES;
