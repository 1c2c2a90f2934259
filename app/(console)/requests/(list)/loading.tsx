import { PageSkeleton } from '@/components/page-skeleton';

/** The Requests list's skeleton (not above /requests/[id], so an unknown request still answers 404). */
export default function Loading() {
  return <PageSkeleton label="Loading requests…" line="h-9" />;
}
