//! Which samples of a window live on (Borer et al. 2018, §5.4, after Liu et al. 2010's SAMCON):
//! of the pooled samples the worst 40 % are dropped; then for i = 0 … k−1 the remaining sample
//! whose cost is nearest c_min + (c_max − c_min)·(i/(k−1))⁶ is taken, without replacement. The
//! exponent keeps most picks near the cheapest while a few mediocre ones stay alive ("the final
//! solution is locally usually not the best solution").

/// The indices (into `costs`) of the `k` samples kept, in the order of the targets (the
/// cheapest first). Non-finite costs are dropped first; fewer than `k` are returned when fewer
/// remain. Ties go to the lower index, so the choice is the same on every machine.
pub fn select(costs: &[f64], k: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..costs.len()).filter(|&i| costs[i].is_finite()).collect();
    order.sort_by(|&a, &b| costs[a].total_cmp(&costs[b]).then(a.cmp(&b)));
    // Keep the best 60 % (at least one).
    let keep = ((order.len() as f64) * 0.6).ceil().max(1.0) as usize;
    order.truncate(keep.min(order.len()));
    if order.is_empty() || k == 0 {
        return Vec::new();
    }
    let (lo, hi) = (costs[order[0]], costs[*order.last().expect("non-empty")]);
    let mut left = order;
    let mut chosen = Vec::with_capacity(k.min(left.len()));
    for i in 0..k {
        if left.is_empty() {
            break;
        }
        let y = if k == 1 {
            lo
        } else {
            lo + (hi - lo) * (i as f64 / (k - 1) as f64).powi(6)
        };
        let (at, _) = left
            .iter()
            .enumerate()
            .min_by(|p, q| {
                let (a, b) = (*p.1, *q.1);
                (costs[a] - y)
                    .abs()
                    .total_cmp(&(costs[b] - y).abs())
                    .then(a.cmp(&b))
            })
            .expect("non-empty");
        chosen.push(left.remove(at));
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Ten costs 0..9 (shuffled), k = 3: the worst 40 % (6..9) go, c ∈ [0, 5]; the targets are
    /// 0, 5·(1/2)⁶ = 0.078 and 5: the samples of cost 0, then (0 taken) the nearest to 0.078, 1,
    /// then 5.
    #[test]
    fn the_papers_rule_on_a_hand_computed_list() {
        let costs = [7.0, 3.0, 0.0, 9.0, 5.0, 1.0, 8.0, 2.0, 6.0, 4.0];
        let kept = select(&costs, 3);
        let picked: Vec<f64> = kept.iter().map(|&i| costs[i]).collect();
        assert_eq!(picked, [0.0, 1.0, 5.0]);
        // No duplicates; the cheapest is always kept; greedy keeps only it.
        assert_eq!(select(&costs, 1), [2]);
        let all = select(&costs, 6);
        let mut sorted = all.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), all.len());
        assert_eq!(all.len(), 6, "six remain after the cut");
        assert_eq!(costs[all[0]], 0.0);
    }

    #[test]
    fn failures_never_live_on() {
        let costs = [f64::NAN, 2.0, f64::INFINITY, 1.0];
        let kept = select(&costs, 4);
        assert!(kept.iter().all(|&i| costs[i].is_finite()), "{kept:?}");
        assert_eq!(select(&[f64::NAN], 2), Vec::<usize>::new());
    }
}
