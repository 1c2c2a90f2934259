import { notFound } from 'next/navigation';

/** Unknown URLs get the console's own 404 (inside the console layout, with navigation) and HTTP 404. */
export default function Missing() {
  notFound();
}
