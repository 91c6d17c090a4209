/**
 * The upload form of the Placements page: a file input that is also the drop target, so dragging a file onto it works
 * without JavaScript, and "check only" (the API's dry run). A plain multipart form, its CSRF token the first field.
 */
import { CsrfField } from '../../layout';

export function UploadForm({ csrfToken }: { csrfToken: string }) {
  return (
    <section class="card" aria-labelledby="upload">
      <h2 id="upload">Upload a placement file</h2>
      <p>
        A CSV with a header row, or JSON Lines: one account a row, its columns the fields of a debt (see{' '}
        <a href="/docs/placements">placements</a>, the <a href="/docs/placements/template.csv">template</a> and the{' '}
        <a href="/docs/placements/example.csv">example file</a>). At most 50 MiB. Every row is checked before any is
        imported.
      </p>
      <form method="post" action="/console/placements" enctype="multipart/form-data">
        <CsrfField token={csrfToken} />
        <label for="placement-file">Placement file</label>
        <span class="hint" id="placement-file-hint">
          Drop the file here, or choose it.
        </span>
        <input
          class="placement-drop"
          id="placement-file"
          type="file"
          name="file"
          required
          accept=".csv,.ndjson,.jsonl,text/csv,application/x-ndjson"
          aria-describedby="placement-file-hint"
        />
        <div class="check">
          <input type="checkbox" id="placement-check-only" name="validate_only" value="yes" />
          <label for="placement-check-only">Check the file only: import nothing</label>
        </div>
        <button type="submit">Upload</button>
      </form>
    </section>
  );
}
