// Stands in for the upstream functions-js suite's Docker relay
// (test/relay/container.ts, supabase/deno-relay): `runRelay` starts a
// `gateway serve` (GATEWAY_BIN) with the suite's JWT secret on a data
// directory of its own, serving the one test function from a
// supabase/functions folder whose deno.json maps deno.land's std `serve`
// (which needs a network this machine may not have) to Deno.serve: the
// function's code is the suite's, unchanged. The relay's port is the
// gateway's; run.sh points the tests at its /functions/v1.
import * as fs from 'fs'
import * as os from 'os'
import * as path from 'path'
import { spawn, ChildProcess } from 'child_process'

export class Relay {
  constructor(public container: { getMappedPort: (port: number) => number }, public child: ChildProcess) {}
  async stop(): Promise<void> {
    this.child.kill('SIGINT')
    if (this.child.exitCode === null) await new Promise((resolve) => this.child.once('exit', resolve))
  }
}

export async function runRelay(slug: string, jwtSecret: string, _origin?: string, env?: Map<string, string>): Promise<Relay> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fjs-'))
  const functions = path.join(root, 'supabase', 'functions')
  fs.mkdirSync(path.join(functions, slug), { recursive: true })
  fs.copyFileSync(path.join(__dirname, "..", "functions", slug, "index.ts"), path.join(functions, slug, 'index.ts'))
  fs.writeFileSync(
    path.join(functions, slug, 'deno.json'),
    JSON.stringify({ imports: { 'https://deno.land/std/http/server.ts': '../_shared/std_serve.ts' } }),
  )
  fs.mkdirSync(path.join(functions, '_shared'))
  fs.writeFileSync(
    path.join(functions, '_shared', 'std_serve.ts'),
    'export function serve(handler: (r: Request) => Response | Promise<Response>) { return Deno.serve(handler) }\n',
  )
  const child = spawn(
    process.env.GATEWAY_BIN!,
    ['serve', '--listen', '127.0.0.1:0', '--data-dir', path.join(root, 'data'), '--functions-dir', functions,
     `--jwt-secret=${jwtSecret}`],
    { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, RUST_LOG: 'warn' } },
  )
  let banner = ''
  for await (const chunk of child.stdout!) {
    banner += chunk
    if (banner.includes('service_role key:')) break
  }
  const port = Number(new URL(banner.match(/API URL:\s+(\S+)/)![1]).port)
  return new Relay({ getMappedPort: () => port }, child)
}
