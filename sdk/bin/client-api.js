#!/usr/bin/env node
// The SDK's command (`client-api listen --forward-to …`): the compiled CLI, built by `npm run build` at the root.
require('../../dist/sdk/src/cli.js').runCli(process.argv.slice(2));
