/**
 * The second factor's fields: one block per factor asked (core/portal/asked-factors.ts), and the answers read back
 * from the posted form. Plain HTML inputs, so the form works with JavaScript off; the date of birth is three labelled
 * number fields in one fieldset (day, month, year), which every browser and screen reader handles alike, unlike a
 * `type=date` picker, and which the browser can fill from `bday-*`.
 */
import { calendarDate } from '../../core/debts/debtor-verification';
import type { Answers, Factor } from '../../core/portal/asked-factors';

/** The form's field names, as posted. */
export const VERIFY_FIELDS = ['accountReference', 'surname', 'postcode', 'dobDay', 'dobMonth', 'dobYear'] as const;
export type VerifyValues = Partial<Record<(typeof VERIFY_FIELDS)[number], string>>;

const PROBLEM_ID = 'verify-problem';

/** The answers a posted form gives; a date of birth whose parts are not a real date is "" (never matches). */
export function answersOf(values: VerifyValues): Answers {
  const [day, month, year] = [values.dobDay, values.dobMonth, values.dobYear].map((part) =>
    /^\s*\d{1,4}\s*$/.test(part ?? '') ? Number(part) : NaN,
  );
  const dateOfBirth = [day, month, year].some(Number.isNaN) ? '' : (calendarDate(year!, month!, day!) ?? '');
  return {
    accountReference: values.accountReference,
    surname: values.surname,
    postcode: values.postcode,
    dateOfBirth,
  };
}

interface FieldProps {
  values: VerifyValues;
  failed: boolean;
}

/** A refused form's inputs point at the banner, besides their own hint. */
function described(failed: boolean, hintId?: string) {
  const ids = [hintId, failed ? PROBLEM_ID : undefined].filter(Boolean).join(' ');
  return { ...(ids ? { 'aria-describedby': ids } : {}), ...(failed ? { 'aria-invalid': 'true' as const } : {}) };
}

function AccountReferenceField({ values, failed }: FieldProps) {
  return (
    <>
      <label for="accountReference">Account reference</label>
      <p class="hint" id="accountReference-hint">
        The reference the company that contacted you uses for your account, as on their letters or statements (for
        example ACCT-0001).
      </p>
      <input
        id="accountReference"
        name="accountReference"
        type="text"
        required
        autocomplete="off"
        {...described(failed, 'accountReference-hint')}
        value={values.accountReference ?? ''}
      />
    </>
  );
}

function SurnameField({ values, failed }: FieldProps) {
  return (
    <>
      <label for="surname">Your surname (family name)</label>
      <input
        id="surname"
        name="surname"
        type="text"
        required
        autocomplete="family-name"
        {...described(failed)}
        value={values.surname ?? ''}
      />
    </>
  );
}

function PostcodeField({ values, failed }: FieldProps) {
  return (
    <>
      <label for="postcode">Your postcode</label>
      <p class="hint" id="postcode-hint">
        The postcode of your address, as the company that contacted you has it.
      </p>
      <input
        id="postcode"
        name="postcode"
        type="text"
        required
        maxLength={32}
        autocomplete="postal-code"
        {...described(failed, 'postcode-hint')}
        value={values.postcode ?? ''}
      />
    </>
  );
}

const DATE_PARTS = [
  { name: 'dobDay', label: 'Day', autocomplete: 'bday-day', size: 2 },
  { name: 'dobMonth', label: 'Month', autocomplete: 'bday-month', size: 2 },
  { name: 'dobYear', label: 'Year', autocomplete: 'bday-year', size: 4 },
] as const;

function DateOfBirthField({ values, failed }: FieldProps) {
  return (
    <fieldset aria-describedby={failed ? `dob-hint ${PROBLEM_ID}` : 'dob-hint'}>
      <legend>Your date of birth</legend>
      <p class="hint" id="dob-hint">
        For example, 27 3 1980.
      </p>
      <div class="date-parts">
        {DATE_PARTS.map((part) => (
          <div class={`date-part date-part-${part.size}`}>
            <label for={part.name}>{part.label}</label>
            <input
              id={part.name}
              name={part.name}
              type="text"
              inputmode="numeric"
              pattern="[0-9]*"
              maxLength={part.size}
              required
              autocomplete={part.autocomplete}
              {...(failed ? { 'aria-invalid': 'true' as const } : {})}
              value={values[part.name] ?? ''}
            />
          </div>
        ))}
      </div>
    </fieldset>
  );
}

const FIELDS: Record<Factor, (props: FieldProps) => preact.JSX.Element> = {
  accountReference: AccountReferenceField,
  surname: SurnameField,
  postcode: PostcodeField,
  dateOfBirth: DateOfBirthField,
};

/** The fields of the factors asked, in their order. */
export function VerifyFields(props: { factors: readonly Factor[]; values: VerifyValues; failed: boolean }) {
  return (
    <>
      {props.factors.map((factor) => {
        const Field = FIELDS[factor];
        return <Field values={props.values} failed={props.failed} />;
      })}
    </>
  );
}

export { PROBLEM_ID };

/** The first field of each factor: where the error summary's link takes the debtor. */
export const FIRST_FIELD: Record<Factor, string> = {
  accountReference: 'accountReference',
  surname: 'surname',
  postcode: 'postcode',
  dateOfBirth: 'dobDay',
};
