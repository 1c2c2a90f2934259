/** Ordering-scenario DTOs shared by the query layer, the services and the editor (no database types). */
import type { OrderDirectivesInput } from '@/lib/domain/ordering';

export interface ScenarioDto {
  id: string;
  name: string;
  owner: string | null;
  mine: boolean;
  shared: boolean;
  note: string;
  input: OrderDirectivesInput;
  selectedRules: string[];
}
