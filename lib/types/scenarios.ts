/** Saved ordering scenarios, as the query returns them and the simulator loads them. */
import type { OrderDirectivesInput } from '@/lib/domain';

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
