#!/usr/bin/env node
// Stops at once, with one line, when this Node is older than the root package.json's engines.node.
// Plain old CommonJS on purpose: it must parse and run on any Node a visitor may have.
'use strict'
var fs = require('fs')
var path = require('path')

var root = path.join(__dirname, '..')
var range = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).engines.node
var needed = /(\d+)(?:\.(\d+))?(?:\.(\d+))?/.exec(range)
var found = process.versions.node.split('.')

function tooOld() {
  for (var i = 1; i <= 3; i++) {
    var want = Number(needed[i] || 0)
    var have = Number(found[i - 1] || 0)
    if (have !== want) return have < want
  }
  return false
}

if (tooOld()) {
  var major = needed[1] + (needed[2] ? '.' + needed[2] : '')
  process.stderr.write(
    'Strata needs Node.js ' +
      range.replace(/^>=\s*/, '>= ') +
      ' (found ' +
      process.versions.node +
      '). Install Node ' +
      major +
      ' or newer (https://nodejs.org) and run the command again.\n',
  )
  process.exit(1)
}
