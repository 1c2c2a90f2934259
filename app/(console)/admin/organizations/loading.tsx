import { PageSkeleton } from '@/components/page-skeleton';

/** Admin → Organizations while the list and the selected organization's members load. */
export default function Loading() {
  return <PageSkeleton label="Loading organizations…" body="h-48" />;
}
