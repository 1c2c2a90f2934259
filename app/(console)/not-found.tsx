import Link from 'next/link';

export default function NotFound() {
  return (
    <div className="card mx-auto max-w-lg space-y-3 p-6 text-center">
      <h1 className="text-lg font-semibold">Not found</h1>
      <p className="text-slate-600">There is no such policy, revision or page — it may have been deleted, or the link is mistyped.</p>
      <Link href="/" className="btn btn-primary">
        Back to the stage board
      </Link>
    </div>
  );
}
