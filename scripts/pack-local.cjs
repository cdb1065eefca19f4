#!/usr/bin/env node
// Builds the publishable packages and packs each into one folder, to try them in an app before they
// are published: `npm run pack:local [-- <folder>]` (default `.packs/`), then in the app
// `npm install <folder>/*.tgz` plus the peers it uses. Prints one line per tarball, then the install line.
// `--no-build` packs the dist folders as they are (for callers that have just built them).
'use strict'
require('./check-node.cjs')
var childProcess = require('child_process')
var fs = require('fs')
var path = require('path')

var root = path.join(__dirname, '..')
var options = process.argv.slice(2)
var build = options.indexOf('--no-build') === -1
var folders = options.filter((option) => option !== '--no-build')
var destination = path.resolve(folders[0] || path.join(root, '.packs'))
var pnpm = path.join(__dirname, 'pnpm.cjs')

function step(args, cwd) {
  var result = childProcess.spawnSync(process.execPath, [pnpm].concat(args), {
    cwd: cwd,
    stdio: ['ignore', 'pipe', 'inherit'],
    encoding: 'utf8',
  })
  if (result.error) throw result.error
  if (result.status !== 0) {
    process.stderr.write(result.stdout)
    process.exit(result.status === null ? 1 : result.status)
  }
  return result.stdout
}

if (build) step(['exec', 'turbo', 'run', 'build', '--filter=./packages/*', '--output-logs=errors-only'], root)
fs.mkdirSync(destination, { recursive: true })

var tarballs = []
fs.readdirSync(path.join(root, 'packages'))
  .sort()
  .forEach((name) => {
    var folder = path.join(root, 'packages', name)
    var manifestPath = path.join(folder, 'package.json')
    if (!fs.existsSync(manifestPath) || JSON.parse(fs.readFileSync(manifestPath, 'utf8')).private) return
    var packed = JSON.parse(step(['pack', '--json', '--pack-destination', destination], folder))
    var file = path.resolve(folder, (Array.isArray(packed) ? packed[0] : packed).filename)
    tarballs.push(file)
    process.stdout.write(file + '\n')
  })

process.stdout.write(
  '\nIn your app: npm install ' + tarballs.join(' ') + ' (plus the peers you use, e.g. ai)\n',
)
