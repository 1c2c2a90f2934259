import { PageSkeleton } from '@/components/page-skeleton';

/**
 * The board's skeleton. It lives here, not at the console root: a loading boundary
 * above every page starts streaming before a page can call notFound(), and
 * then a missing policy, revision or URL would answer HTTP 200 instead of 404.
 */
export default function Loading() {
  return <PageSkeleton label="Loading…" />;
}
