import Link from 'next/link';

/**
 * Issue 43: a node page that cannot be shown. A node that does not exist and a node in a stage the reader may not
 * view get this same page and the same 404 (nothing here says which), in words that cover both.
 */
export default function NodeNotFound() {
  return (
    <div className="card mx-auto max-w-lg space-y-3 p-6 text-center" data-testid="node-not-found">
      <h1 className="text-lg font-semibold">Node not found, or not visible to you</h1>
      <p className="text-slate-600">
        There is no node of that name that you may see. It may have been deleted or renamed, the link may be mistyped, or it may be in a stage you are not allowed to view: ask someone who manages that stage
        for access.
      </p>
      <div className="flex flex-wrap justify-center gap-2">
        <Link href="/nodes" className="btn btn-primary">
          Search the nodes you may see
        </Link>
        <Link href="/" className="btn">
          Back to the stage board
        </Link>
      </div>
    </div>
  );
}
