'use server';

import { ZRollbackInput } from '@/lib/services/rollback';
import { rollback } from '@/lib/services/rollback';
import { serviceAction } from '../safe-action';

export const rollbackAction = serviceAction({ input: ZRollbackInput.omit({ requestId: true }), run: rollback, revalidate: ['/', 'layout'] });
