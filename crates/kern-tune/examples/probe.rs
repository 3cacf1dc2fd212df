use std::time::Instant;
fn main() {
    let n: usize = 3_123_750;
    let p: Vec<f64> = (0..n).map(|i| ((i * 7919) % 10007) as f64 * 0.01).collect();
    for _ in 0..3 {
        let t = Instant::now();
        let m = kern_tune::bandwidth::mean_similarity(&p, 0.3);
        println!("mean_similarity {:.2} ms ({m})", t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let s: f64 = p.iter().map(|v| (-0.3 * v).exp()).sum();
        println!("std exp serial {:.2} ms ({s})", t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        let d = kern_tune::bandwidth::variance_derivative(&p, 0.3);
        println!("variance_derivative {:.2} ms ({d})", t.elapsed().as_secs_f64() * 1e3);
    }
}
