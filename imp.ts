import * as root from 'toolsmith'
import * as core from 'toolsmith/core'
import * as tools from 'toolsmith/tools'
import * as prov from 'toolsmith/providers'
import * as mcp from 'toolsmith/mcp'
import * as runner from 'toolsmith/runner'
import * as art from 'toolsmith/artifacts'
console.log(Object.keys(root).length, Object.keys(core).length, Object.keys(tools).length, Object.keys(prov).length, Object.keys(mcp).length, Object.keys(runner).length, Object.keys(art).length)
