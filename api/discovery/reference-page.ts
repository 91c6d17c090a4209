/**
 * The Scalar reference at /reference, ready to try on either host: the bearer scheme is selected,
 * so a key pasted in the request panel is sent at once; this host is the first server; and the page shows none of
 * Scalar's hosted-service controls (its developer toolbar with Configure/Share/Deploy, the AI agent, telemetry, web
 * fonts), since it is served offline from this host's own copy of the package.
 *
 * The first server is this page's own origin rather than the configured URL of this host: the API sends no CORS
 * headers, so "try it" works only against the page's own origin, and a host reached as 127.0.0.1 rather than its
 * configured `localhost` name (or through another name of a proxy) must still call itself.
 */
import type { ServerEntry } from './openapi-document';
import { BEARER_SCHEME } from './openapi-operation';

/** Scalar's options (node_modules/@scalar/types/dist/api-reference/api-reference-configuration.d.ts). */
const SCALAR_OPTIONS = {
  url: '/openapi/v1.json',
  // Nothing from Scalar's servers: no web fonts, telemetry or AI agent.
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  // The developer toolbar (Developer Tools, Configure, Share, Deploy) links to Scalar's hosted services.
  showDeveloperTools: 'never',
  // "Open API Client" duplicates each operation's "Test Request", which stays.
  hideClientButton: true,
  hideTestRequestButton: false,
  authentication: { preferredSecurityScheme: BEARER_SCHEME },
};

/** `<` escaped so that no value can close the script element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** `servers`: this host's entry first (see hostServers), then the other host. */
export function referencePage(servers: ServerEntry[]): string {
  const [own, ...others] = servers;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Client Public API · Reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body>
<div id="reference"></div>
<script src="/reference/standalone.js"></script>
<script>
(function () {
  var own = ${scriptJson(own)};
  var others = ${scriptJson(others)};
  var here = window.location.origin;
  var first = { url: here, description: own ? own.description : 'This host' };
  var servers = [first].concat(others.filter(function (s) { return s.url !== here; }));
  var options = Object.assign(${scriptJson(SCALAR_OPTIONS)}, { servers: servers });
  Scalar.createApiReference('#reference', options);
})();
</script>
</body></html>`;
}
