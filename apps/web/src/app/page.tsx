import { redirect } from 'next/navigation'
import { AppShell } from '../components/app-shell'
import { modelName } from '../lib/model'

export const dynamic = 'force-dynamic'

/** One page: a new thread unless the URL names one (`/?thread=ID`). */
export default async function Page({ searchParams }: { searchParams: Promise<{ thread?: string }> }) {
  const { thread } = await searchParams
  if (typeof thread !== 'string' || thread === '') {
    redirect(`/?thread=web-${crypto.randomUUID().slice(0, 8)}`)
  }
  return <AppShell threadId={thread} model={modelName()} />
}
