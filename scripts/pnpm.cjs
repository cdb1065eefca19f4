#!/usr/bin/env node
// Runs pnpm at exactly the version that package.json's packageManager pins, for people who have only
// Node and npm: `node scripts/pnpm.cjs <pnpm arguments>`. Checks the Node version first, then uses the
// pnpm running this script (when pnpm started it), a pnpm of that version on PATH, or else fetches it
// once with npx. Plain CommonJS so that the Node check in it runs on old Nodes.
'use strict'
require('./check-node.cjs')
var childProcess = require('child_process')
var fs = require('fs')
var path = require('path')

var root = path.join(__dirname, '..')
var manager = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).packageManager
var version = manager.replace(/^pnpm@/, '').split('+')[0]
var args = process.argv.slice(2)

function run(command, commandArgs, env) {
  var result = childProcess.spawnSync(command, commandArgs, { stdio: 'inherit', env: env || process.env })
  if (result.error) throw result.error
  process.exit(result.status === null ? 1 : result.status)
}

function pnpmOnPath() {
  var result = childProcess.spawnSync('pnpm', ['--version'], {
    encoding: 'utf8',
    shell: process.platform === 'win32',
  })
  return !result.error && result.status === 0 && result.stdout.trim() === version
}

var agent = process.env.npm_config_user_agent || ''
var execPath = process.env.npm_execpath || ''
if (agent.indexOf('pnpm/' + version + ' ') === 0 && execPath) {
  // pnpm 12 is a native binary; older pnpm versions are a JavaScript file run by node.
  if (/\.[cm]?js$/.test(execPath)) run(process.execPath, [execPath].concat(args))
  else run(execPath, args)
} else if (pnpmOnPath()) {
  run('pnpm', args, undefined)
} else {
  // npx puts the fetched pnpm's bin folder on PATH, so turbo and nested `pnpm` calls find it too.
  var npx = process.platform === 'win32' ? 'npx.cmd' : 'npx'
  run(npx, ['--yes', 'pnpm@' + version].concat(args))
}
