aws eks create-nodegroup \
--cluster-name my-cluster \
--nodegroup-name windows-workers \
--node-role arn:aws:iam::123456789:role/EKSWindowsNodeRole \
--ami-type WINDOWS_CORE_2022_x86_64 \
--instance-types m5.2xlarge \
--scaling-config minSize=1,maxSize=5,desiredSize=2 \
--subnets subnet-abc123 subnet-def456
